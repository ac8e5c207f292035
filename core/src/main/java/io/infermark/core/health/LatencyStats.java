package io.infermark.core.health;

import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * A summary of lateness samples in nanoseconds: how many, and their p50, p99, p99.9 and maximum. Used
 * for the hiccup meter and for {@link Probe} readings.
 *
 * @param samples how many values were recorded (with jHiccup's coordinated-omission correction, see
 *     {@link HiccupMeter})
 * @param p50Nanos the median
 * @param p99Nanos the 99th percentile
 * @param p999Nanos the 99.9th percentile
 * @param maxNanos the largest value
 */
public record LatencyStats(long samples, long p50Nanos, long p99Nanos, long p999Nanos, long maxNanos) {

  /** No samples. */
  public static final LatencyStats EMPTY = new LatencyStats(0, 0, 0, 0, 0);

  /** Validates: counts and values are not negative, percentiles do not decrease. */
  public LatencyStats {
    if (samples < 0 || p50Nanos < 0) {
      throw new IllegalArgumentException("samples and values must be >= 0, were " + samples + ", " + p50Nanos);
    }
    if (p99Nanos < p50Nanos || p999Nanos < p99Nanos || maxNanos < p999Nanos) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "percentiles must not decrease: p50 %d, p99 %d, p99.9 %d, max %d ns", p50Nanos, p99Nanos, p999Nanos,
          maxNanos));
    }
  }

  /** The summary of a histogram of nanosecond values ({@link #EMPTY} when it has none). */
  public static LatencyStats of(Histogram h) {
    if (h.getTotalCount() == 0) {
      return EMPTY;
    }
    long max = h.getMaxValue();
    return new LatencyStats(h.getTotalCount(), Math.min(h.getValueAtPercentile(50), max),
        Math.min(h.getValueAtPercentile(99), max), Math.min(h.getValueAtPercentile(99.9), max), max);
  }

  /** Whether any value was recorded. */
  public boolean isEmpty() {
    return samples == 0;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "LatencyStats[n=%d, p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms]",
        samples, p50Nanos / 1e6, p99Nanos / 1e6, p999Nanos / 1e6, maxNanos / 1e6);
  }
}
