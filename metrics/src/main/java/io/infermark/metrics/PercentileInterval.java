package io.infermark.metrics;

import io.infermark.metrics.stats.OrderStatisticRanks;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * A percentile with its distribution-free confidence interval: the estimate (by the distribution's
 * quantile method) and, when the sample is large enough, the order statistics that bound the true
 * percentile with at least the requested confidence (see {@link OrderStatisticRanks}). When the
 * interval cannot be formed, {@link #lowerMillis()} and {@link #upperMillis()} are empty and
 * {@link #isFormed()} is false: P99 from fewer than 368 values at 95 %, for example.
 *
 * @param p the quantile, in (0, 1)
 * @param confidence the requested confidence, in (0, 1)
 * @param count the sample size
 * @param estimateMillis the percentile itself, empty for an empty sample
 * @param ranks the bounding ranks, empty when the interval cannot be formed
 * @param lowerMillis the lower bound, the value of rank {@code ranks.lower()}
 * @param upperMillis the upper bound, the value of rank {@code ranks.upper()}
 */
public record PercentileInterval(double p, double confidence, int count, OptionalDouble estimateMillis,
    Optional<OrderStatisticRanks> ranks, OptionalDouble lowerMillis, OptionalDouble upperMillis) {

  /** Validates: bounds exist exactly when ranks do, and lower ≤ upper. */
  public PercentileInterval {
    if (ranks.isPresent() != lowerMillis.isPresent() || ranks.isPresent() != upperMillis.isPresent()) {
      throw new IllegalArgumentException("bounds must be present exactly when ranks are");
    }
    if (lowerMillis.isPresent() && lowerMillis.getAsDouble() > upperMillis.getAsDouble()) {
      throw new IllegalArgumentException("lower bound " + lowerMillis.getAsDouble() + " is above upper bound "
          + upperMillis.getAsDouble());
    }
  }

  /** True when the sample was large enough to bound the percentile at the requested confidence. */
  public boolean isFormed() {
    return ranks.isPresent();
  }

  /** The interval's width in ms, when formed. */
  public OptionalDouble widthMillis() {
    return isFormed() ? OptionalDouble.of(upperMillis.getAsDouble() - lowerMillis.getAsDouble())
        : OptionalDouble.empty();
  }

  @Override
  public String toString() {
    String estimate = estimateMillis.isPresent()
        ? String.format(Locale.ROOT, "%.3f ms", estimateMillis.getAsDouble()) : "none";
    if (!isFormed()) {
      return String.format(Locale.ROOT, "PercentileInterval[p%s = %s, no %.0f%% interval from %d values, needs %d]",
          p * 100, estimate, confidence * 100, count, OrderStatisticRanks.samplesNeeded(p, confidence));
    }
    return String.format(Locale.ROOT, "PercentileInterval[p%s = %s, %.0f%% in [%.3f, %.3f] ms from %d values]",
        p * 100, estimate, confidence * 100, lowerMillis.getAsDouble(), upperMillis.getAsDouble(), count);
  }
}
