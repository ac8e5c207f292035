package io.infermark.metrics.hdr;

import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import org.HdrHistogram.Histogram;

/**
 * A latency distribution held as an HdrHistogram of nanoseconds with 3 significant digits: memory
 * does not grow with the number of values, and every statistic is within 0.1 % of the exact one.
 * Values are reported in ms like {@link io.infermark.metrics.Distribution}'s. Immutable: it holds
 * its own copy of the histogram.
 */
public final class HdrDistribution {

  private final Histogram histogram;

  HdrDistribution(Histogram histogram) {
    this.histogram = Objects.requireNonNull(histogram, "histogram");
  }

  /** A distribution of a copy of the given histogram, whose values are nanoseconds. */
  public static HdrDistribution of(Histogram nanos) {
    return new HdrDistribution(nanos.copy());
  }

  /** A copy of the underlying histogram (nanoseconds), e.g. to merge runs or write a log. */
  public Histogram histogramNanos() {
    return histogram.copy();
  }

  /** The number of values. */
  public long count() {
    return histogram.getTotalCount();
  }

  /** The mean in ms, if there are values. */
  public OptionalDouble mean() {
    return count() == 0 ? OptionalDouble.empty() : OptionalDouble.of(histogram.getMean() / 1e6);
  }

  /** The population standard deviation in ms, if there are values. */
  public OptionalDouble std() {
    return count() == 0 ? OptionalDouble.empty() : OptionalDouble.of(histogram.getStdDeviation() / 1e6);
  }

  /** The smallest value in ms (to the histogram's precision), if there are values. */
  public OptionalDouble min() {
    return count() == 0 ? OptionalDouble.empty() : OptionalDouble.of(histogram.getMinValue() / 1e6);
  }

  /** The largest value in ms (to the histogram's precision), if there are values. */
  public OptionalDouble max() {
    return count() == 0 ? OptionalDouble.empty() : OptionalDouble.of(histogram.getMaxValue() / 1e6);
  }

  /**
   * The {@code p}-quantile in ms: HdrHistogram's value at percentile {@code 100·p} (the highest value
   * equivalent to the one at that rank, so at most 0.1 % above the nearest-rank value).
   *
   * @throws IllegalArgumentException if p is outside [0, 1]
   */
  public OptionalDouble percentile(double p) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("p must be in [0, 1] (0.99 for P99), was " + p);
    }
    return count() == 0 ? OptionalDouble.empty() : OptionalDouble.of(histogram.getValueAtPercentile(p * 100) / 1e6);
  }

  /** The bytes the histogram occupies, which stays bounded however many values it holds. */
  public int footprintBytes() {
    return histogram.getEstimatedFootprintInBytes();
  }

  @Override
  public String toString() {
    if (count() == 0) {
      return "HdrDistribution[empty]";
    }
    return String.format(Locale.ROOT, "HdrDistribution[n=%d, mean %.3f ms, p50 %.3f ms, p99 %.3f ms, max %.3f ms]",
        count(), mean().getAsDouble(), percentile(0.5).getAsDouble(), percentile(0.99).getAsDouble(),
        max().getAsDouble());
  }
}
