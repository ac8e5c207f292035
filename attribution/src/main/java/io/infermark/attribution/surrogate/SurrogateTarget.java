package io.infermark.attribution.surrogate;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.LatencyMetric;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What a surrogate model predicts for each request: a per-request latency in milliseconds
 * ({@link #latency(LatencyMetric)}, e.g. E2E or TTFT), or whether the request was in the tail of
 * that latency ({@link #tail(LatencyMetric, double)}: 1 when above the given percentile of the
 * table's requests, 0 otherwise). Latency targets are regressions explained in ms; tail targets are
 * classifications explained in log-odds.
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
   * all requests in the table (linear interpolation, like numpy), else 0.
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

  /** The tail's percentile, NaN for a latency target. */
  public double percentile() {
    return percentile;
  }

  /** A name for reports: {@code e2e_ms}, or {@code e2e_ms_above_p99}. */
  public String name() {
    return isTail() ? metric.fieldName() + "_above_p" + formatPercentile() : metric.fieldName();
  }

  /** The unit of predictions and attributions: {@code "ms"}, or {@code "log-odds"} for a tail target. */
  public String unit() {
    return isTail() ? "log-odds" : LatencyMetric.UNIT;
  }

  /** The target of each record, NaN where its latency is undefined. */
  double[] values(List<RequestRecord> records) {
    double[] v = new double[records.size()];
    for (int i = 0; i < v.length; i++) {
      double[] values = metric.valuesMillis(records.get(i));
      v[i] = values.length == 1 ? values[0] : Double.NaN;
    }
    if (!isTail()) {
      return v;
    }
    double[] defined = Arrays.stream(v).filter(x -> !Double.isNaN(x)).sorted().toArray();
    if (defined.length == 0) {
      return v;
    }
    double threshold = QuantileMethod.LINEAR.quantile(defined, percentile);
    for (int i = 0; i < v.length; i++) {
      if (!Double.isNaN(v[i])) {
        v[i] = v[i] > threshold ? 1 : 0;
      }
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
