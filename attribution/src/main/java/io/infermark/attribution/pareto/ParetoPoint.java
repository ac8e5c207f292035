package io.infermark.attribution.pareto;

import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * One labelled configuration for a {@link ParetoFront}: its throughput (more is better) and its
 * latency (less is better).
 *
 * @param label what the configuration was (a name, a record of knob settings, a sweep level)
 * @param throughput requests or tokens per second, finite and &gt;= 0
 * @param latencyMillis a latency statistic in ms (typically a P99), finite and &gt;= 0
 * @param <T> the label type
 */
public record ParetoPoint<T>(T label, double throughput, double latencyMillis) {

  /** Validates; turns {@code -0.0} into {@code 0.0} so that equal values compare equal. */
  public ParetoPoint {
    Objects.requireNonNull(label, "label");
    if (!(throughput >= 0) || Double.isInfinite(throughput)) {
      throw new IllegalArgumentException("throughput of " + label + " must be finite and >= 0, was " + throughput);
    }
    if (!(latencyMillis >= 0) || Double.isInfinite(latencyMillis)) {
      throw new IllegalArgumentException("latencyMillis of " + label + " must be finite and >= 0, was "
          + latencyMillis);
    }
    throughput += 0.0;
    latencyMillis += 0.0;
  }

  /**
   * The point of a run: its successful requests per second against a percentile of {@code metric}.
   *
   * @param percentile in [0, 1]: 0.99 for P99
   * @return the point, empty when the run has no throughput or no value of the metric
   */
  public static <T> Optional<ParetoPoint<T>> of(T label, RunSummary summary, LatencyMetric metric, double percentile) {
    OptionalDouble rps = summary.requestThroughputRps();
    OptionalDouble lat = summary.distribution(metric).percentile(percentile);
    if (rps.isEmpty() || lat.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new ParetoPoint<>(label, rps.getAsDouble(), lat.getAsDouble()));
  }

  /**
   * True when this point dominates {@code other}: at least its throughput and at most its latency,
   * strictly better in one. Equal points do not dominate each other.
   */
  public boolean dominates(ParetoPoint<?> other) {
    return throughput >= other.throughput && latencyMillis <= other.latencyMillis
        && (throughput > other.throughput || latencyMillis < other.latencyMillis);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s (%s/s, %.3f ms)", label, throughput, latencyMillis);
  }
}
