package io.infermark.attribution.surrogate;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.LatencyMetric;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * What a surrogate model predicts for each request: a per-request latency in milliseconds
 * ({@link #latency(LatencyMetric)}, e.g. E2E or TTFT), or whether the request was in the tail of
 * that latency ({@link #tail(LatencyMetric, double)}: 1 when above the given percentile of the
 * training requests' values, 0 otherwise). Latency targets are regressions explained in ms; tail
 * targets are classifications explained in log-odds.
 */
public final class SurrogateTarget {

  private final LatencyMetric metric;
  private final double percentile;

  private SurrogateTarget(LatencyMetric metric, double percentile) {
    this.metric = metric;
    this.percentile = percentile;
  }

  /**
   * The request's value of a per-request latency metric, in ms.
   *
   * @throws IllegalArgumentException if the metric is pooled (one value per gap, like ITL)
   */
  public static SurrogateTarget latency(LatencyMetric metric) {
    return new SurrogateTarget(perRequest(metric), Double.NaN);
  }

  /** End-to-end latency (last token − send), ms. */
  public static SurrogateTarget e2e() {
    return latency(LatencyMetric.E2E);
  }

  /** Time to first token, ms. */
  public static SurrogateTarget ttft() {
    return latency(LatencyMetric.TTFT);
  }

  /**
   * 1 when the request's {@code metric} is above the {@code percentile} (e.g. 0.99) of the values of
   * the requests the model is trained on (linear interpolation, like numpy), else 0. The threshold is
   * computed from the training rows only, so that the held-out rows that measure the fit do not shape
   * their own labels' cut; {@code Surrogate.tailThresholdMillis()} reports it.
   *
   * @throws IllegalArgumentException if the metric is pooled or the percentile is not in (0, 1)
   */
  public static SurrogateTarget tail(LatencyMetric metric, double percentile) {
    if (!(percentile > 0 && percentile < 1)) {
      throw new IllegalArgumentException("percentile must be in (0, 1), was " + percentile);
    }
    return new SurrogateTarget(perRequest(metric), percentile);
  }

  private static LatencyMetric perRequest(LatencyMetric metric) {
    Objects.requireNonNull(metric, "metric");
    if (metric.isPooled()) {
      throw new IllegalArgumentException(metric + " has one value per gap, not per request; use a per-request metric");
    }
    return metric;
  }

  /** The latency metric. */
  public LatencyMetric metric() {
    return metric;
  }

  /** True for a tail indicator (a classification), false for a latency (a regression). */
  public boolean isTail() {
    return !Double.isNaN(percentile);
  }

  /** The tail's percentile, in (0, 1); empty for a latency target. */
  public OptionalDouble percentile() {
    return isTail() ? OptionalDouble.of(percentile) : OptionalDouble.empty();
  }

  /** A name for reports: {@code e2e_ms}, or {@code e2e_ms_above_p99}. */
  public String name() {
    return isTail() ? metric.fieldName() + "_above_p" + formatPercentile() : metric.fieldName();
  }

  /** The unit of predictions and attributions: {@code "ms"}, or {@code "log-odds"} for a tail target. */
  public String unit() {
    return isTail() ? "log-odds" : LatencyMetric.UNIT;
  }

  /** Each record's latency in ms, NaN where it is undefined. */
  double[] latencies(List<RequestRecord> records) {
    double[] v = new double[records.size()];
    for (int i = 0; i < v.length; i++) {
      double[] values = metric.valuesMillis(records.get(i));
      v[i] = values.length == 1 ? values[0] : Double.NaN;
    }
    return v;
  }

  /**
   * The tail threshold, ms: the percentile of {@code latencies} over {@code trainingRows} (rows with a
   * defined latency).
   */
  double tailThreshold(double[] latencies, int[] trainingRows) {
    if (!isTail()) {
      throw new IllegalStateException(name() + " is not a tail target");
    }
    if (trainingRows.length == 0) {
      throw new IllegalArgumentException("a tail threshold needs at least one training row");
    }
    double[] training = new double[trainingRows.length];
    for (int i = 0; i < training.length; i++) {
      training[i] = latencies[trainingRows[i]];
    }
    Arrays.sort(training);
    return QuantileMethod.LINEAR.quantile(training, percentile);
  }

  /**
   * The label of each row: its latency for a latency target; for a tail target 1 above
   * {@link #tailThreshold} of the training rows, else 0. NaN stays NaN.
   */
  double[] labels(double[] latencies, int[] trainingRows) {
    if (!isTail()) {
      return latencies.clone();
    }
    double threshold = tailThreshold(latencies, trainingRows);
    double[] v = new double[latencies.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = Double.isNaN(latencies[i]) ? Double.NaN : latencies[i] > threshold ? 1 : 0;
    }
    return v;
  }

  private String formatPercentile() {
    String s = String.format(Locale.ROOT, "%.4f", percentile * 100).replaceAll("0+$", "").replaceAll("\\.$", "");
    return s.replace('.', '_');
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SurrogateTarget t && t.metric == metric && Double.compare(t.percentile, percentile) == 0;
  }

  @Override
  public int hashCode() {
    return metric.hashCode() * 31 + Double.hashCode(percentile);
  }

  @Override
  public String toString() {
    return "SurrogateTarget[" + name() + ", " + unit() + "]";
  }
}
