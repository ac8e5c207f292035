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

  /**
   * The first time a nanosecond schedule cannot hold: 2^63 ns (Long.MAX_VALUE + 1), about 292 years.
   * A time computed as a double at or past it would saturate to Long.MAX_VALUE when rounded.
   */
  static final double SCHEDULE_END_NANOS = 0x1p63;

  /** The lowest rate whose gap, 1e9 / rate ns, is shorter than {@link #SCHEDULE_END_NANOS}. */
  static final double MIN_SCHEDULABLE_RATE = Math.nextUp(1e9 / SCHEDULE_END_NANOS);

  /**
   * {@link #check(double)}, and a rate high enough that one gap fits a nanosecond schedule (below it,
   * rounding the second arrival time saturates and every request after the first would be dropped).
   */
  static double checkSchedulable(double requestsPerSecond) {
    check(requestsPerSecond);
    if (requestsPerSecond < MIN_SCHEDULABLE_RATE) {
      throw new IllegalArgumentException("rate " + requestsPerSecond + " requests/s is too low to schedule: one gap "
          + "would be " + 1e9 / requestsPerSecond + " ns, beyond the 292 years (2^63 ns) a schedule can hold; the "
          + "lowest is " + MIN_SCHEDULABLE_RATE + " requests/s");
    }
    return requestsPerSecond;
  }

  /**
   * An arrival time as a double: its rounded value, or when it is past what a schedule can hold, an
   * exception if there is no time limit (the request would otherwise be dropped without a word) and
   * {@code -1} (past any limit: stop) otherwise.
   */
  static long at(double nanos, long limitNanos, int index, int maxCount, double rate) {
    if (nanos < SCHEDULE_END_NANOS) {
      return Math.round(nanos);
    }
    if (limitNanos == Long.MAX_VALUE) {
      throw new IllegalArgumentException("request " + index + " of " + maxCount + " at " + rate + " requests/s would "
          + "be sent " + nanos / 1e9 + " s after the start, beyond the 292 years (2^63 ns) a schedule can hold: "
          + "raise the rate, send fewer requests or set a duration");
    }
    return -1;
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
