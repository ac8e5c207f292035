package io.infermark.core.sweep;

import io.infermark.core.RunResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.DoubleFunction;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Finds the highest request rate whose run meets an SLO with few runs: bracketing, then
 * interpolation.
 *
 * <pre>{@code
 * CapacityResult c = CapacitySearch.atMost(RecordPercentiles.of(RecordPercentiles::e2eSeconds, 0.95), 2.0)
 *     .startRate(4).maxRate(512)
 *     .run(rate -> base.load(LoadProfile.poisson(rate).duration(Duration.ofMinutes(1))).run());
 * }</pre>
 *
 * <ol>
 *   <li>Bracket: run at the start rate; while it passes multiply the rate by the growth factor (2)
 *       until one fails or the maximum rate passes; while it fails divide until one passes or the
 *       rate drops below the minimum. This gives a passing rate {@code lo} and a failing {@code hi}.
 *   <li>Refine: with a metric, the next rate is where the line through {@code (lo, m(lo))} and
 *       {@code (hi, m(hi))} crosses the threshold (regula falsi), kept at least 10 % of the bracket
 *       away from its ends so that the bracket always shrinks; with a plain predicate, the midpoint.
 *       Stop when {@code (hi − lo) / lo} is within the relative tolerance (5 %) or after the maximum
 *       number of runs (12).
 * </ol>
 *
 * <p>The capacity is the highest passing rate. A metric value of NaN (no successful request) counts
 * as a failure, and so does a run whose client was CLIENT_BOUND ({@link CapacityProbe#passed()}): its
 * figures are the client's, not the server's. {@link CapacityResult#warnings()} names such runs, and the
 * result's {@code toString} says how many there were. The SLO is assumed monotone in rate (it holds below capacity and fails above);
 * noise near the capacity moves the answer within the tolerance. Immutable.
 */
public final class CapacitySearch {

  private final ToDoubleFunction<RunResult> metric;
  private final double threshold;
  private final Predicate<RunResult> slo;
  private final double startRate;
  private final double minRate;
  private final double maxRate;
  private final double growth;
  private final double tolerance;
  private final int maxRuns;

  private CapacitySearch(ToDoubleFunction<RunResult> metric, double threshold, Predicate<RunResult> slo,
      double startRate, double minRate, double maxRate, double growth, double tolerance, int maxRuns) {
    this.metric = metric;
    this.threshold = threshold;
    this.slo = slo;
    this.startRate = startRate;
    this.minRate = minRate;
    this.maxRate = maxRate;
    this.growth = growth;
    this.tolerance = tolerance;
    this.maxRuns = maxRuns;
  }

  /** A search for the highest rate at which {@code metric} stays at or below {@code threshold}. */
  public static CapacitySearch atMost(ToDoubleFunction<RunResult> metric, double threshold) {
    Objects.requireNonNull(metric, "metric");
    if (Double.isNaN(threshold)) {
      throw new IllegalArgumentException("threshold must be a number");
    }
    return new CapacitySearch(metric, threshold, null, 1, 0.01, 1e6, 2, 0.05, 12);
  }

  /** A search for the highest rate at which {@code slo} holds (bisection after bracketing). */
  public static CapacitySearch passing(Predicate<RunResult> slo) {
    Objects.requireNonNull(slo, "slo");
    return new CapacitySearch(null, Double.NaN, slo, 1, 0.01, 1e6, 2, 0.05, 12);
  }

  /** The first rate tried (default 1 req/s). */
  public CapacitySearch startRate(double rate) {
    return new CapacitySearch(metric, threshold, slo, positive(rate, "startRate"), minRate, maxRate, growth,
        tolerance, maxRuns);
  }

  /** The lowest rate tried (default 0.01 req/s). */
  public CapacitySearch minRate(double rate) {
    return new CapacitySearch(metric, threshold, slo, startRate, positive(rate, "minRate"), maxRate, growth,
        tolerance, maxRuns);
  }

  /** The highest rate tried (default 10⁶ req/s). */
  public CapacitySearch maxRate(double rate) {
    return new CapacitySearch(metric, threshold, slo, startRate, minRate, positive(rate, "maxRate"), growth,
        tolerance, maxRuns);
  }

  /** Bracketing factor (default 2), > 1. */
  public CapacitySearch growth(double factor) {
    if (!(factor > 1) || Double.isInfinite(factor)) {
      throw new IllegalArgumentException("growth must be finite and > 1, was " + factor);
    }
    return new CapacitySearch(metric, threshold, slo, startRate, minRate, maxRate, factor, tolerance, maxRuns);
  }

  /** Stop when the bracket is this narrow relative to its lower end (default 0.05), > 0. */
  public CapacitySearch tolerance(double relative) {
    return new CapacitySearch(metric, threshold, slo, startRate, minRate, maxRate, growth,
        positive(relative, "tolerance"), maxRuns);
  }

  /** Stop after this many runs (default 12), >= 1. */
  public CapacitySearch maxRuns(int runs) {
    if (runs < 1) {
      throw new IllegalArgumentException("maxRuns must be >= 1, was " + runs);
    }
    return new CapacitySearch(metric, threshold, slo, startRate, minRate, maxRate, growth, tolerance, runs);
  }

  /**
   * Runs the search, calling {@code runAtRate} once per probe.
   *
   * @throws IllegalArgumentException if the rate bounds are inconsistent
   */
  public CapacityResult run(DoubleFunction<RunResult> runAtRate) {
    Objects.requireNonNull(runAtRate, "runAtRate");
    if (!(minRate <= startRate && startRate <= maxRate)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "need minRate <= startRate <= maxRate, were %s, %s, %s", minRate, startRate, maxRate));
    }
    List<CapacityProbe> probes = new ArrayList<>();
    CapacityProbe first = probe(runAtRate, startRate, probes);
    CapacityProbe lo = first.passed() ? first : null;
    CapacityProbe hi = first.passed() ? null : first;
    while (lo == null && probes.size() < maxRuns) {
      double r = hi.rate() / growth;
      if (r < minRate) {
        return new CapacityResult(OptionalDouble.empty(), false, probes);
      }
      CapacityProbe p = probe(runAtRate, r, probes);
      if (p.passed()) {
        lo = p;
      } else {
        hi = p;
      }
    }
    while (hi == null && probes.size() < maxRuns) {
      if (lo.rate() >= maxRate) {
        return new CapacityResult(OptionalDouble.of(lo.rate()), true, probes);
      }
      CapacityProbe p = probe(runAtRate, Math.min(maxRate, lo.rate() * growth), probes);
      if (p.passed()) {
        lo = p;
      } else {
        hi = p;
      }
    }
    if (lo == null) {
      return new CapacityResult(OptionalDouble.empty(), false, probes);
    }
    while (hi != null && (hi.rate() - lo.rate()) / lo.rate() > tolerance && probes.size() < maxRuns) {
      CapacityProbe p = probe(runAtRate, next(lo, hi), probes);
      if (p.passed()) {
        lo = p;
      } else {
        hi = p;
      }
    }
    return new CapacityResult(OptionalDouble.of(lo.rate()), hi == null, probes);
  }

  private double next(CapacityProbe lo, CapacityProbe hi) {
    double width = hi.rate() - lo.rate();
    double r = lo.rate() + width / 2;
    if (metric != null && Double.isFinite(lo.value()) && Double.isFinite(hi.value()) && hi.value() > lo.value()) {
      r = lo.rate() + (threshold - lo.value()) * width / (hi.value() - lo.value());
    }
    return Math.max(lo.rate() + 0.1 * width, Math.min(hi.rate() - 0.1 * width, r));
  }

  private CapacityProbe probe(DoubleFunction<RunResult> runAtRate, double rate, List<CapacityProbe> probes) {
    RunResult result = Objects.requireNonNull(runAtRate.apply(rate), "runAtRate returned null");
    CapacityProbe p;
    if (metric != null) {
      double v = metric.applyAsDouble(result);
      p = new CapacityProbe(rate, v, !Double.isNaN(v) && v <= threshold, result);
    } else {
      p = new CapacityProbe(rate, Double.NaN, slo.test(result), result);
    }
    probes.add(p);
    return p;
  }

  private static double positive(double v, String name) {
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(name + " must be finite and > 0, was " + v);
    }
    return v;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CapacitySearch[%s, start %s, range [%s, %s], growth %s, tolerance %s, "
        + "max %d runs]", metric != null ? "metric <= " + threshold : "predicate", startRate, minRate, maxRate,
        growth, tolerance, maxRuns);
  }
}
