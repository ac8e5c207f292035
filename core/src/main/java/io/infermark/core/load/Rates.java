package io.infermark.core.load;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/** Validation and array helpers shared by arrival processes. */
final class Rates {
  private Rates() {}

  static double check(double requestsPerSecond) {
    return check(requestsPerSecond, "rate");
  }

  static double check(double requestsPerSecond, String name) {
    if (!(requestsPerSecond > 0) || Double.isInfinite(requestsPerSecond)) {
      throw new IllegalArgumentException(name + " must be a finite number of requests per second > 0, was "
          + requestsPerSecond);
    }
    return requestsPerSecond;
  }

  static double checkNonNegative(double requestsPerSecond, String name) {
    if (!(requestsPerSecond >= 0) || Double.isInfinite(requestsPerSecond)) {
      throw new IllegalArgumentException(name + " must be a finite number of requests per second >= 0, was "
          + requestsPerSecond);
    }
    return requestsPerSecond;
  }

  static long positiveNanos(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, was " + d);
    }
    return d.toNanos();
  }

  static void checkLimits(int maxCount, long limitNanos) {
    if (maxCount < 0) {
      throw new IllegalArgumentException("maxCount must be >= 0, was " + maxCount);
    }
    if (limitNanos < 0) {
      throw new IllegalArgumentException("limitNanos must be >= 0, was " + limitNanos);
    }
  }

  static long[] trim(long[] times, int n) {
    return n == times.length ? times : Arrays.copyOf(times, n);
  }

  /** A growable schedule buffer sized from an expected count. */
  static final class Times {
    private final int maxCount;
    private long[] t;
    private int n;

    Times(int maxCount, double expected) {
      this.maxCount = maxCount;
      this.t = new long[(int) Math.max(0, Math.min(maxCount, 16 + Math.min(expected * 1.25, 1 << 20)))];
    }

    boolean full() {
      return n >= maxCount;
    }

    void add(long at) {
      if (n == t.length) {
        t = Arrays.copyOf(t, (int) Math.min(maxCount, (long) t.length * 2 + 16));
      }
      t[n++] = at;
    }

    int size() {
      return n;
    }

    long[] toArray() {
      return trim(t, n);
    }
  }
}
