package io.infermark.attribution.knee;

import io.infermark.core.health.ClientHealth;
import io.infermark.core.sweep.SweepPoint;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.report.LoadCurvePoint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The knees of a sweep's latency–load curve by both rules: {@link Kneedle} (relative bend, as kneed
 * finds it) and {@link SlopeThreshold} (first segment steeper than an absolute slope), each naming
 * the load level (rate or concurrency) where it lies.
 *
 * <p>The curve's y is a percentile of one {@link LatencyMetric} in ms; the default is <b>P99 TTFT</b>,
 * infermark's choice: queueing, the thing a knee marks, lands in time to first token undiluted, while E2E
 * adds decode time that scales with output length. Its x is, by default, each level's <b>achieved
 * throughput</b> (successful requests per second of the level's window, {@link KneeAxis#ACHIEVED_THROUGHPUT}),
 * as seed 002 §3.2 defines the knee: "延迟增长率 Δlatency/ΔQPS 首次超过阈值 120ms/QPS" with QPS the measured
 * end-to-end rate; {@link KneeAxis#OFFERED_LOAD} plots against the offered rate (or the concurrency)
 * instead. <b>Seed 002's knee</b> is {@link #seed002}: the seed's y is its "P99延迟" (its vLLM row: knee at
 * 184 QPS, P99 1,247 ms), the request's end-to-end latency, so it is P99 <b>E2E</b> against achieved
 * throughput with the 120 ms per QPS slope; the default TTFT curve of the same sweep is not the seed's and
 * can put its knee elsewhere (with TTFT half of E2E its slopes are half, and 120 ms per QPS is reached later
 * or never). The levels are taken in the order of the load they offered. Against achieved throughput the x
 * need not rise: a level that delivered no more than an earlier one is past saturation. The slope rule
 * walks the levels in offered order ({@link SlopeThreshold#findAlong}), so the first segment where
 * latency rose while throughput did not has an infinite slope and is the knee; Kneedle, which needs an
 * increasing x, sees only the levels whose throughput exceeded every lower level's
 * ({@link #kneedleLabels()}). Levels where the metric or the throughput has no value (every request
 * failed) are left out of the curve and listed in {@link #skippedLabels()}. The default detectors are
 * {@link Kneedle#latencyCurve()} (convex, increasing, S = 1, offline) and {@link SlopeThreshold#defaults()}
 * (120 ms per req/s).
 *
 * <p>Saturation: a level where every request failed, at a higher load than a level that had values,
 * is where the server stopped answering ({@link #saturatedLabel()}). Its latency is unbounded, so for
 * the slope rule it is a knee too: {@link #slopeLabel()} is the end of the first too-steep segment or
 * the first saturated level, whichever has the lower load, and {@link #slopeKneeIsSaturation()} says
 * which. Kneedle, a relative bend, sees only the levels with values; read {@link #saturatedLabel()}
 * next to it. Failed levels below every level with values (a misconfiguration rather than load) are
 * only skipped.
 *
 * <pre>{@code
 * List<SweepPoint<Double>> points = Sweep.rates(1, 2, 4, 8, 16).run(rate -> ...);
 * SweepKnees knees = SweepKnees.ofSweep(points);
 * knees.kneedleLabel();   // Optional[8 req/s]
 * knees.slopeLabel();     // Optional[16 req/s]
 * }</pre>
 *
 * <p>A knee found on levels whose client could not keep up is the client's knee, not the server's:
 * {@link #clientWarnings()} names every level whose run was DEGRADED or CLIENT_BOUND, with the reasons,
 * and {@link #toString()} ends with a warning when there is any.
 *
 * <p>Immutable.
 */
public final class SweepKnees {

  /** The default metric: time to first token. */
  public static final LatencyMetric DEFAULT_METRIC = LatencyMetric.TTFT;
  /** The default percentile: P99. */
  public static final double DEFAULT_PERCENTILE = 0.99;

  private final LatencyMetric metric;
  private final double percentile;
  private final KneeAxis axis;
  private final List<String> labels;
  private final double[] loads;
  private final double[] offered;
  private final double[] achieved;
  private final double[] latencies;
  /** Indices into {@link #labels} of the points Kneedle saw (x strictly increasing). */
  private final int[] kneedlePoints;
  private final List<String> skipped;
  private final KneedleResult kneedle;
  private final Optional<SlopeKnee> slope;
  private final Optional<String> saturated;
  /** The number of curve points (levels with values) below the saturated level; 0 when there is none. */
  private final int belowSaturated;
  private final List<String> clientWarnings;

  private SweepKnees(LatencyMetric metric, double percentile, KneeAxis axis, List<String> labels, double[] loads,
      double[] offered, double[] achieved, double[] latencies, int[] kneedlePoints, List<String> skipped,
      KneedleResult kneedle, Optional<SlopeKnee> slope, Optional<String> saturated, int belowSaturated,
      List<String> clientWarnings) {
    this.metric = metric;
    this.percentile = percentile;
    this.axis = axis;
    this.labels = labels;
    this.loads = loads;
    this.offered = offered;
    this.achieved = achieved;
    this.latencies = latencies;
    this.kneedlePoints = kneedlePoints;
    this.skipped = skipped;
    this.kneedle = kneedle;
    this.slope = slope;
    this.saturated = saturated;
    this.belowSaturated = belowSaturated;
    this.clientWarnings = clientWarnings;
  }

  /** Seed 002's metric for its knee: end-to-end latency ("P99延迟"). */
  public static final LatencyMetric SEED_002_METRIC = LatencyMetric.E2E;

  /**
   * Seed 002 §3.2's knee of a core sweep: P99 <b>E2E</b> latency (the seed's "P99延迟") against achieved
   * throughput (its "端到端 QPS"), where Δlatency/ΔQPS first exceeds 120 ms per QPS, with Kneedle beside it.
   */
  public static SweepKnees seed002(List<? extends SweepPoint<? extends Number>> points) {
    return of(LoadCurvePoint.of(points), SEED_002_METRIC, 0.99, Kneedle.latencyCurve(), SlopeThreshold.defaults(),
        KneeAxis.ACHIEVED_THROUGHPUT);
  }

  /** The knees of a core sweep over rates or concurrencies, with the defaults (P99 TTFT against achieved req/s). */
  public static SweepKnees ofSweep(List<? extends SweepPoint<? extends Number>> points) {
    return of(LoadCurvePoint.of(points));
  }

  /** The knees of a core sweep with the default metric and detectors, against the given axis. */
  public static SweepKnees ofSweep(List<? extends SweepPoint<? extends Number>> points, KneeAxis axis) {
    return of(LoadCurvePoint.of(points), DEFAULT_METRIC, DEFAULT_PERCENTILE, Kneedle.latencyCurve(),
        SlopeThreshold.defaults(), axis);
  }

  /** The knees of a core sweep with the given metric, percentile and detectors, against achieved throughput. */
  public static SweepKnees ofSweep(List<? extends SweepPoint<? extends Number>> points, LatencyMetric metric,
      double percentile, Kneedle kneedle, SlopeThreshold slope) {
    return of(LoadCurvePoint.of(points), metric, percentile, kneedle, slope);
  }

  /** The knees of a core sweep with the given metric, percentile, detectors and axis. */
  public static SweepKnees ofSweep(List<? extends SweepPoint<? extends Number>> points, LatencyMetric metric,
      double percentile, Kneedle kneedle, SlopeThreshold slope, KneeAxis axis) {
    return of(LoadCurvePoint.of(points), metric, percentile, kneedle, slope, axis);
  }

  /** The knees of a load curve with the defaults (P99 TTFT against achieved req/s, Kneedle, 120 ms per req/s). */
  public static SweepKnees of(List<LoadCurvePoint> curve) {
    return of(curve, DEFAULT_METRIC, DEFAULT_PERCENTILE, Kneedle.latencyCurve(), SlopeThreshold.defaults());
  }

  /** The knees of a load curve against achieved throughput (the seed's axis). */
  public static SweepKnees of(List<LoadCurvePoint> curve, LatencyMetric metric, double percentile, Kneedle kneedle,
      SlopeThreshold slope) {
    return of(curve, metric, percentile, kneedle, slope, KneeAxis.ACHIEVED_THROUGHPUT);
  }

  /**
   * The knees of a load curve.
   *
   * @param curve the levels, in any order (taken by ascending offered load)
   * @param metric the latency metric
   * @param percentile in (0, 1): 0.99 for P99
   * @param kneedle the Kneedle settings
   * @param slope the slope rule
   * @param axis the curve's x: achieved throughput (the seed's) or offered load
   * @throws IllegalArgumentException if the percentile is outside (0, 1) or two levels have the same offered load
   */
  public static SweepKnees of(List<LoadCurvePoint> curve, LatencyMetric metric, double percentile, Kneedle kneedle,
      SlopeThreshold slope, KneeAxis axis) {
    Objects.requireNonNull(curve, "curve");
    Objects.requireNonNull(metric, "metric");
    Objects.requireNonNull(kneedle, "kneedle");
    Objects.requireNonNull(slope, "slope");
    Objects.requireNonNull(axis, "axis");
    if (!(percentile > 0 && percentile < 1)) {
      throw new IllegalArgumentException("percentile must be in (0, 1) (0.99 for P99), was " + percentile);
    }
    List<LoadCurvePoint> sorted = new ArrayList<>(curve);
    sorted.sort(Comparator.comparingDouble(LoadCurvePoint::offeredLoad));
    List<String> labels = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    String saturated = null;
    int belowSaturated = 0;
    double[] offered = new double[sorted.size()];
    double[] achieved = new double[sorted.size()];
    double[] y = new double[sorted.size()];
    int n = 0;
    for (int i = 0; i < sorted.size(); i++) {
      LoadCurvePoint p = sorted.get(i);
      if (i > 0 && p.offeredLoad() == sorted.get(i - 1).offeredLoad()) {
        throw new IllegalArgumentException("two levels have the same offered load " + p.offeredLoad() + " ("
            + sorted.get(i - 1).label() + ", " + p.label() + "); a curve needs one point per load");
      }
      ClientHealth health = p.summary().clientHealth();
      if (health.isWarning()) {
        warnings.add(p.label() + ": client " + health.verdict() + ": " + health.reasonText());
      }
      OptionalDouble v = p.summary().distribution(metric).percentile(percentile);
      OptionalDouble rps = p.summary().requestThroughputRps();
      if (v.isEmpty() || rps.isEmpty()) {
        skipped.add(p.label());
        if (saturated == null && n > 0) {
          saturated = p.label();
          belowSaturated = n;
        }
        continue;
      }
      labels.add(p.label());
      offered[n] = p.offeredLoad();
      achieved[n] = rps.getAsDouble();
      y[n] = v.getAsDouble();
      n++;
    }
    offered = java.util.Arrays.copyOf(offered, n);
    achieved = java.util.Arrays.copyOf(achieved, n);
    double[] lat = java.util.Arrays.copyOf(y, n);
    double[] x = axis == KneeAxis.ACHIEVED_THROUGHPUT ? achieved : offered;
    // Kneedle needs x strictly increasing: keep the levels that delivered more than every lower level.
    int[] rising = new int[n];
    int m = 0;
    for (int i = 0; i < n; i++) {
      if (m == 0 || x[i] > x[rising[m - 1]]) {
        rising[m++] = i;
      }
    }
    rising = java.util.Arrays.copyOf(rising, m);
    double[] kx = new double[m];
    double[] ky = new double[m];
    for (int j = 0; j < m; j++) {
      kx[j] = x[rising[j]];
      ky[j] = lat[rising[j]];
    }
    KneedleResult k = m == 0 ? KneedleResult.none(kneedle, kx, ky) : kneedle.locate(kx, ky);
    return new SweepKnees(metric, percentile, axis, List.copyOf(labels), x.clone(), offered, achieved, lat, rising,
        List.copyOf(skipped), k, slope.findAlong(x, lat), Optional.ofNullable(saturated), belowSaturated,
        List.copyOf(warnings));
  }

  /** The metric whose percentile makes the curve. */
  public LatencyMetric metric() {
    return metric;
  }

  /** The percentile, in (0, 1). */
  public double percentile() {
    return percentile;
  }

  /** What the curve's x is. */
  public KneeAxis axis() {
    return axis;
  }

  /** The labels of the curve's points, by ascending offered load. */
  public List<String> labels() {
    return labels;
  }

  /**
   * The curve's x at each point, in the order of {@link #labels()}: achieved req/s or offered load, as
   * {@link #axis()} says. Against achieved throughput it need not increase.
   */
  public double[] loads() {
    return loads.clone();
  }

  /** The load each point offered (req/s, or concurrency), ascending. */
  public double[] offeredLoads() {
    return offered.clone();
  }

  /** Each point's achieved throughput: successful requests per second of its window. */
  public double[] achievedThroughputs() {
    return achieved.clone();
  }

  /**
   * The labels of the points Kneedle saw: those whose x exceeded every lower level's (all of them
   * against offered load; against achieved throughput, the levels before throughput stalled or fell).
   */
  public List<String> kneedleLabels() {
    List<String> out = new ArrayList<>(kneedlePoints.length);
    for (int i : kneedlePoints) {
      out.add(labels.get(i));
    }
    return List.copyOf(out);
  }

  /** The curve's y: the percentile of the metric at each point, ms. */
  public double[] latenciesMillis() {
    return latencies.clone();
  }

  /** Labels of levels left out because the metric had no value there, by ascending load. */
  public List<String> skippedLabels() {
    return skipped;
  }

  /**
   * The lowest-load level where the metric had no value (every request failed) although a lower-load
   * level had values: where the server saturated. Empty when no such level exists.
   */
  public Optional<String> saturatedLabel() {
    return saturated;
  }

  /**
   * One line per level whose client was DEGRADED or CLIENT_BOUND, by ascending load, e.g. {@code "125 req/s:
   * client CLIENT_BOUND: hiccup p99 12.3 ms > 10 ms: the client's threads could not run on time"}; empty when
   * every level's client was OK or unmeasured. A knee at or above such a level may be the client's.
   */
  public List<String> clientWarnings() {
    return clientWarnings;
  }

  /** Kneedle's full result on the points of {@link #kneedleLabels()} (its indices are into that list). */
  public KneedleResult kneedle() {
    return kneedle;
  }

  /**
   * The first segment between levels with values that is steeper than the slope threshold, if any.
   * This is the numeric segment only: when the server saturates at a lower load, {@link #slopeLabel()}
   * names the saturated level instead.
   */
  public Optional<SlopeKnee> slope() {
    return slope;
  }

  /**
   * True when the slope rule's knee is a saturated level ({@link #saturatedLabel()}) — every request
   * failed there, below the load of any too-steep segment — rather than the end of {@link #slope()}.
   */
  public boolean slopeKneeIsSaturation() {
    return saturated.isPresent() && (slope.isEmpty() || slope.get().index() >= belowSaturated);
  }

  /** The label of the level at Kneedle's chosen knee. */
  public Optional<String> kneedleLabel() {
    return kneedle.chosen().map(k -> labels.get(kneedlePoints[k.index()]));
  }

  /**
   * The slope rule's knee: the level that ends the first too-steep segment, or the first saturated
   * level when that has a lower load ({@link #slopeKneeIsSaturation()}).
   */
  public Optional<String> slopeLabel() {
    return slopeKneeIsSaturation() ? saturated : slope.map(s -> labels.get(s.index()));
  }

  /**
   * The last level before the slope rule's knee: the highest load at an acceptable slope, with values
   * (the level before the too-steep segment, or the last level with values below the saturated one).
   */
  public Optional<String> lastAcceptableLabel() {
    return slopeKneeIsSaturation() ? Optional.of(labels.get(belowSaturated - 1))
        : slope.map(s -> labels.get(s.index() - 1));
  }

  /**
   * One line: {@code SweepKnees[TTFT p99 against achieved req/s over 5 levels: kneedle 8 req/s (412.000 ms),
   * slope 4 req/s -> 8 req/s (190.5 ms per req/s > 120)]}; with saturation, e.g.
   * {@code slope concurrency 8 -> concurrency 32 (every request failed), saturated at concurrency 32,
   * skipped [concurrency 32]}; a segment where throughput did not rise says {@code (throughput did not
   * rise: 84.0 -> 83.5 req/s)}.
   */
  @Override
  public String toString() {
    String k = kneedle.chosen().map(c -> String.format(Locale.ROOT, "%s (%.3f ms)",
        labels.get(kneedlePoints[c.index()]), c.y())).orElse("none");
    String unit = axis == KneeAxis.ACHIEVED_THROUGHPUT ? "req/s" : "unit";
    String s;
    if (slopeKneeIsSaturation()) {
      s = lastAcceptableLabel().orElseThrow() + " -> " + saturated.orElseThrow() + " (every request failed)";
    } else {
      s = slope.map(sk -> Double.isInfinite(sk.slope())
          ? String.format(Locale.ROOT, "%s -> %s (throughput did not rise: %.1f -> %.1f req/s)",
              labels.get(sk.index() - 1), labels.get(sk.index()), sk.fromLoad(), sk.toLoad())
          : String.format(Locale.ROOT, "%s -> %s (%.1f ms per %s > %s)", labels.get(sk.index() - 1),
              labels.get(sk.index()), sk.slope(), unit, sk.threshold())).orElse("none");
    }
    String sat = saturated.map(l -> ", saturated at " + l).orElse("");
    String skip = skipped.isEmpty() ? "" : ", skipped " + skipped;
    String warn = clientWarnings.isEmpty() ? "" : "; WARNING " + String.join("; ", clientWarnings);
    return String.format(Locale.ROOT, "SweepKnees[%s p%s against %s over %d levels: kneedle %s, slope %s%s%s%s]",
        metric, formatPercent(percentile), axis == KneeAxis.ACHIEVED_THROUGHPUT ? "achieved req/s" : "offered load",
        labels.size(), k, s, sat, skip, warn);
  }

  static String formatPercent(double p) {
    double pct = p * 100;
    return pct == Math.rint(pct) ? String.valueOf((long) pct) : String.valueOf(Math.round(pct * 1e6) / 1e6);
  }
}
