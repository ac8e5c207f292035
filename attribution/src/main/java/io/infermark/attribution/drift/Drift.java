package io.infermark.attribution.drift;

import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.PercentileInterval;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * Compares two samples of a latency metric — two runs, or two windows of one run — and reports the
 * drift as a {@link DriftReport}.
 *
 * <pre>{@code
 * DriftReport r = Drift.compare(baselineRun.records(), currentRun.records(), LatencyMetric.TTFT);
 * if (r.drifted()) log.warn("TTFT drifted: {}", r);
 * }</pre>
 *
 * <p>Values are milliseconds. From records, only measured ({@code !warmup, !cooldown}) successful
 * ones count, as in {@link io.infermark.metrics.RunSummary}. Each sample needs at least 2 values (the
 * KS test's minimum). See {@link DriftOptions} for bins, smoothing and tail percentiles.
 */
public final class Drift {

  private Drift() {}

  /** Compares with {@link DriftOptions#defaults()}. */
  public static DriftReport compare(double[] baselineMillis, double[] currentMillis) {
    return compare(baselineMillis, currentMillis, DriftOptions.defaults());
  }

  /**
   * Compares two samples of milliseconds.
   *
   * @param baselineMillis the reference sample, at least 2 finite values
   * @param currentMillis the sample compared with it, at least 2 finite values
   * @throws IllegalArgumentException if a sample has fewer than 2 values or a non-finite one
   */
  public static DriftReport compare(double[] baselineMillis, double[] currentMillis, DriftOptions options) {
    Objects.requireNonNull(baselineMillis, "baselineMillis");
    Objects.requireNonNull(currentMillis, "currentMillis");
    Objects.requireNonNull(options, "options");
    requireTwo("baseline", baselineMillis);
    requireTwo("current", currentMillis);
    // Distribution.of validates finiteness with the value's index.
    Distribution base = Distribution.of(baselineMillis);
    Distribution cur = Distribution.of(currentMillis);
    BinnedDivergence div = BinnedDivergence.of(baselineMillis, currentMillis, options.bins(), options.pseudoCount());
    KsResult ks = KsResult.of(baselineMillis, currentMillis, options.ksAlpha());
    double[] ps = options.tailPercentiles();
    List<PercentileInterval> bi = base.percentileIntervals(ps, options.confidence());
    List<PercentileInterval> ci = cur.percentileIntervals(ps, options.confidence());
    List<TailComparison> tails = new ArrayList<>(ps.length);
    for (int i = 0; i < ps.length; i++) {
      tails.add(TailComparison.of(ps[i], bi.get(i), ci.get(i)));
    }
    double b99 = base.p99().getAsDouble();
    OptionalDouble ratio = b99 == 0 ? OptionalDouble.empty() : OptionalDouble.of(cur.p99().getAsDouble() / b99);
    return new DriftReport(baselineMillis.length, currentMillis.length, div, ks, tails, ratio, options);
  }

  /** Compares a metric over two sets of records with {@link DriftOptions#defaults()}. */
  public static DriftReport compare(List<RequestRecord> baseline, List<RequestRecord> current, LatencyMetric metric) {
    return compare(baseline, current, metric, DriftOptions.defaults());
  }

  /**
   * Compares a metric over two sets of records: their measured, successful requests' values.
   *
   * @throws IllegalArgumentException if either side yields fewer than 2 values
   */
  public static DriftReport compare(List<RequestRecord> baseline, List<RequestRecord> current, LatencyMetric metric,
      DriftOptions options) {
    return compare(valuesMillis(baseline, metric), valuesMillis(current, metric), options);
  }

  /**
   * The metric's values over the measured, successful records, in ms, in record order (pooled metrics
   * such as ITL give one value per gap).
   */
  public static double[] valuesMillis(List<RequestRecord> records, LatencyMetric metric) {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(metric, "metric");
    double[][] parts = new double[records.size()][];
    int total = 0;
    int k = 0;
    for (RequestRecord r : records) {
      if (r.measured() && r.succeeded()) {
        double[] v = metric.valuesMillis(r);
        parts[k++] = v;
        total += v.length;
      }
    }
    double[] out = new double[total];
    int at = 0;
    for (int i = 0; i < k; i++) {
      System.arraycopy(parts[i], 0, out, at, parts[i].length);
      at += parts[i].length;
    }
    return out;
  }

  private static void requireTwo(String name, double[] values) {
    if (values.length < 2) {
      throw new IllegalArgumentException(name + " needs at least 2 values to compare (the KS test's minimum), had "
          + values.length);
    }
  }
}
