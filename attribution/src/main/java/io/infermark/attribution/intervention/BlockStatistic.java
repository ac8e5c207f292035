package io.infermark.attribution.intervention;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.Percentile;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * The number an intervention experiment measures on each block's run: a percentile of a
 * {@link LatencyMetric} (by default the P99 of E2E, in ms) over the run's measured, successful
 * requests, as the metrics module computes it, or any function of the run.
 */
public final class BlockStatistic {

  private final String name;
  private final ToDoubleFunction<RunResult> function;

  private BlockStatistic(String name, ToDoubleFunction<RunResult> function) {
    this.name = name;
    this.function = function;
  }

  /** The default: P99 of {@link LatencyMetric#E2E} in ms, linear percentiles. */
  public static BlockStatistic p99E2e() {
    return percentile(LatencyMetric.E2E, 0.99);
  }

  /**
   * The {@code p}-quantile of {@code metric} in ms, linear (numpy-compatible) percentiles.
   *
   * @param p in [0, 1]: 0.99 for P99
   * @throws IllegalArgumentException if {@code p} is outside [0, 1]
   */
  public static BlockStatistic percentile(LatencyMetric metric, double p) {
    return percentile(metric, p, QuantileMethod.LINEAR);
  }

  /**
   * The {@code p}-quantile of {@code metric} in ms by {@code method}.
   *
   * @param p in [0, 1]: 0.99 for P99
   * @throws IllegalArgumentException if {@code p} is outside [0, 1]
   */
  public static BlockStatistic percentile(LatencyMetric metric, double p, QuantileMethod method) {
    Objects.requireNonNull(metric, "metric");
    Objects.requireNonNull(method, "method");
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("percentile p must be in [0, 1] (0.99 for P99), was " + p);
    }
    String name = "p" + Percentile.percentText(p) + " " + metric.fieldName();
    return new BlockStatistic(name, run -> distribution(run, metric, method, name).percentile(p).getAsDouble());
  }

  /** The mean of {@code metric} in ms. */
  public static BlockStatistic mean(LatencyMetric metric) {
    Objects.requireNonNull(metric, "metric");
    String name = "mean " + metric.fieldName();
    return new BlockStatistic(name, run -> distribution(run, metric, QuantileMethod.LINEAR, name).mean().getAsDouble());
  }

  /**
   * Any statistic of a run, e.g. the waiting phase's mean share in the P99 tail from a
   * {@link io.infermark.attribution.phase.PhaseDecomposition PhaseDecomposition}.
   *
   * @throws IllegalArgumentException if the name is blank
   */
  public static BlockStatistic of(String name, ToDoubleFunction<RunResult> statistic) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(statistic, "statistic");
    if (name.isBlank()) {
      throw new IllegalArgumentException("a statistic's name must not be blank");
    }
    return new BlockStatistic(name, statistic);
  }

  /** What is measured, e.g. {@code p99 e2e_ms}. */
  public String name() {
    return name;
  }

  /**
   * The statistic of one run.
   *
   * @throws IllegalStateException if the run has no value to compute it from (every request failed)
   */
  public double of(RunResult run) {
    return function.applyAsDouble(run);
  }

  private static Distribution distribution(RunResult run, LatencyMetric metric, QuantileMethod method, String name) {
    List<double[]> parts = new ArrayList<>();
    int count = 0;
    int measured = 0;
    int failed = 0;
    for (RequestRecord r : run.records()) {
      if (!r.measured()) {
        continue;
      }
      measured++;
      if (!r.succeeded()) {
        failed++;
        continue;
      }
      double[] v = metric.valuesMillis(r);
      parts.add(v);
      count += v.length;
    }
    if (count == 0) {
      throw new IllegalStateException("cannot compute " + name + ": the run has no " + metric + " value ("
          + measured + " measured requests, " + failed + " failed)");
    }
    double[] all = new double[count];
    int at = 0;
    for (double[] v : parts) {
      System.arraycopy(v, 0, all, at, v.length);
      at += v.length;
    }
    return Distribution.of(all, method);
  }

  @Override
  public String toString() {
    return "BlockStatistic[" + name + "]";
  }
}
