package io.infermark.core.load;

/** Validation shared by rate-based arrival processes. */
final class Rates {
  private Rates() {}

  static double check(double requestsPerSecond) {
    if (!(requestsPerSecond > 0) || Double.isInfinite(requestsPerSecond)) {
      throw new IllegalArgumentException("rate must be a finite number of requests per second > 0, was "
          + requestsPerSecond);
    }
    return requestsPerSecond;
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
    return n == times.length ? times : java.util.Arrays.copyOf(times, n);
  }
}
