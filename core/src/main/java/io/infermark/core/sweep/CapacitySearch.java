package io.infermark.core.sweep;

import io.infermark.core.RunResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
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
 * <p>{@link #overConcurrency()} searches closed-loop concurrency instead (seed 002's "largest concurrency whose
 * P95 latency stays ≤ 2 s"), over whole numbers of streams:
 *
 * <pre>{@code
 * CapacityResult c = CapacitySearch.atMost(RecordPercentiles.of(RecordPercentiles::e2eSeconds, 0.95), 2.0)
 *     .overConcurrency().maxRate(256)
 *     .run(streams -> base.load(LoadProfile.concurrency((int) streams).requests(200)).run());
 * }</pre>
 *
 * <p>The capacity is the highest passing rate (or concurrency; {@link CapacityResult#axis()} says which). A
 * metric value of NaN (no successful request) counts as a failure. A run whose client was CLIENT_BOUND never passes ({@link CapacityProbe#passed()}): its
 * figures are the client's, not the server's; the search ends there
 * ({@link CapacityResult#stoppedEarly()}) instead of walking the rate down on figures that say nothing
 * about the server. {@link CapacityResult#warnings()} names such runs. The SLO is assumed monotone in rate (it holds below capacity and fails above);
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
  private final CapacityAxis axis;

  private CapacitySearch(ToDoubleFunction<RunResult> metric, double threshold, Predicate<RunResult> slo,
      double startRate, double minRate, double maxRate, double growth, double tolerance, int maxRuns) {
    this(metric, threshold, slo, startRate, minRate, maxRate, growth, tolerance, maxRuns, CapacityAxis.RATE);
  }

  private CapacitySearch(ToDoubleFunction<RunResult> metric, double threshold, Predicate<RunResult> slo,
      double startRate, double minRate, double maxRate, double growth, double tolerance, int maxRuns,
      CapacityAxis axis) {
    this.metric = metric;
    this.threshold = threshold;
    this.slo = slo;
    this.startRate = startRate;
    this.minRate = minRate;
    this.maxRate = maxRate;
    this.growth = growth;
    this.tolerance = tolerance;
    this.maxRuns = maxRuns;
    this.axis = axis;
  }

  /** A search for the highest rate at which {@code metric} stays at or below {@code threshold}. */
  public static CapacitySearch atMost(ToDoubleFunction<RunResult> metric, double threshold) {
    Objects.requireNonNull(metric, "metric");
    if (Double.isNaN(threshold)) {
      throw new IllegalArgumentException("threshold must be a number");
    }
    return new CapacitySearch(metric, threshold, null, 1, DEFAULT_MIN_RATE, DEFAULT_MAX_RATE, 2, 0.05, 12);
  }

  /** A search for the highest rate at which {@code slo} holds (bisection after bracketing). */
  public static CapacitySearch passing(Predicate<RunResult> slo) {
    Objects.requireNonNull(slo, "slo");
    return new CapacitySearch(null, Double.NaN, slo, 1, DEFAULT_MIN_RATE, DEFAULT_MAX_RATE, 2, 0.05, 12);
  }

  /** The first rate tried (default 1 req/s). */
  public CapacitySearch startRate(double rate) {
    return new CapacitySearch(metric, threshold, slo, positive(rate, "startRate"), minRate, maxRate, growth,
        tolerance, maxRuns, axis);
  }

  /** The lowest rate tried (default 0.01 req/s). */
  public CapacitySearch minRate(double rate) {
    return new CapacitySearch(metric, threshold, slo, startRate, positive(rate, "minRate"), maxRate, growth,
        tolerance, maxRuns, axis);
  }

  /** The highest rate tried (default 10⁶ req/s). */
  public CapacitySearch maxRate(double rate) {
    return new CapacitySearch(metric, threshold, slo, startRate, minRate, positive(rate, "maxRate"), growth,
        tolerance, maxRuns, axis);
  }

  /** Bracketing factor (default 2), > 1. */
  public CapacitySearch growth(double factor) {
    if (!(factor > 1) || Double.isInfinite(factor)) {
      throw new IllegalArgumentException("growth must be finite and > 1, was " + factor);
    }
    return new CapacitySearch(metric, threshold, slo, startRate, minRate, maxRate, factor, tolerance, maxRuns, axis);
  }

  /** Stop when the bracket is this narrow relative to its lower end (default 0.05), > 0. */
  public CapacitySearch tolerance(double relative) {
    return new CapacitySearch(metric, threshold, slo, startRate, minRate, maxRate, growth,
        positive(relative, "tolerance"), maxRuns, axis);
  }

  /** Stop after this many runs (default 12), >= 1. */
  public CapacitySearch maxRuns(int runs) {
    if (runs < 1) {
      throw new IllegalArgumentException("maxRuns must be >= 1, was " + runs);
    }
    return new CapacitySearch(metric, threshold, slo, startRate, minRate, maxRate, growth, tolerance, runs, axis);
  }

  /**
   * The same search over closed-loop concurrency instead of a request rate (seed 002's "largest concurrency
   * whose P95 latency stays ≤ 2 s"): every level is a whole number ≥ 1, the start, minimum and maximum
   * are rounded to whole numbers (the minimum up, at least 1; the maximum down), bracketing multiplies and
   * divides by the growth factor and rounds (up by at least one stream, down by at least one), and refinement
   * picks a whole number strictly inside the bracket. The search ends when the bracket is two neighbours
   * ({@code hi − lo = 1}), within the tolerance, or after the maximum number of runs. The function given to
   * {@link #run} receives whole numbers: run {@code (int) level} streams. Unless set, the start and minimum are 1
   * and the maximum 1024.
   */
  public CapacitySearch overConcurrency() {
    return new CapacitySearch(metric, threshold, slo, startRate, minRate == DEFAULT_MIN_RATE ? 1 : minRate,
        maxRate == DEFAULT_MAX_RATE ? DEFAULT_MAX_CONCURRENCY : maxRate, growth, tolerance, maxRuns,
        CapacityAxis.CONCURRENCY);
  }

  /** The default lowest rate, req/s. */
  private static final double DEFAULT_MIN_RATE = 0.01;
  /** The default highest rate, req/s. */
  private static final double DEFAULT_MAX_RATE = 1e6;
  /** The default highest concurrency of a search {@link #overConcurrency()}. */
  private static final double DEFAULT_MAX_CONCURRENCY = 1024;

  /** What the search varies: {@link CapacityAxis#RATE} unless {@link #overConcurrency()}. */
  public CapacityAxis axis() {
    return axis;
  }

  /**
   * Runs the search, calling {@code runAtRate} once per probe.
   *
   * @throws IllegalArgumentException if the rate bounds are inconsistent
   */
  public CapacityResult run(DoubleFunction<RunResult> runAtRate) {
    return run(runAtRate, p -> { }, () -> false);
  }

  /**
   * Runs the search, calling {@code runAtRate} once per probe and {@code onProbe} with each probe as soon as it
   * ends (to show it, or to save it). Before each probe it asks {@code stop}; once that says so (a signal, a time
   * limit), the search ends with what it has. It also ends after a probe whose client was CLIENT_BOUND (that
   * probe measured the client, and walking the rate down on such figures can take hours without learning
   * anything about the server), and after a run that was interrupted. {@link CapacityResult#stoppedEarly()} then
   * says why, and the capacity is the highest passing rate found so far.
   *
   * @throws IllegalArgumentException if the rate bounds are inconsistent
   */
  public CapacityResult run(DoubleFunction<RunResult> runAtRate, Consumer<CapacityProbe> onProbe,
      BooleanSupplier stop) {
    Objects.requireNonNull(runAtRate, "runAtRate");
    Objects.requireNonNull(onProbe, "onProbe");
    Objects.requireNonNull(stop, "stop");
    try {
      return search(runAtRate, onProbe, stop);
    } catch (Stopped s) {
      OptionalDouble best = s.probes.stream().filter(CapacityProbe::passed).mapToDouble(CapacityProbe::rate).max();
      return new CapacityResult(best, false, s.probes, Optional.of(s.why), axis);
    }
  }

  /** Ends a search early, with the probes made so far. */
  private static final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient List<CapacityProbe> probes;
    private final String why;

    Stopped(List<CapacityProbe> probes, String why) {
      super(why, null, false, false);
      this.probes = List.copyOf(probes);
      this.why = why;
    }
  }

  private CapacityResult search(DoubleFunction<RunResult> runAtRate, Consumer<CapacityProbe> onProbe,
      BooleanSupplier stop) {
    boolean whole = axis == CapacityAxis.CONCURRENCY;
    double startRate = whole ? Math.max(1, Math.rint(this.startRate)) : this.startRate;
    double minRate = whole ? Math.max(1, Math.ceil(this.minRate)) : this.minRate;
    double maxRate = whole ? Math.floor(this.maxRate) : this.maxRate;
    if (!(minRate <= startRate && startRate <= maxRate)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "need minRate <= startRate <= maxRate, were %s, %s, %s%s", minRate, startRate, maxRate,
          whole ? " (concurrencies, rounded to whole streams)" : ""));
    }
    List<CapacityProbe> probes = new ArrayList<>();
    Prober probe = rate -> probe(runAtRate, rate, probes, onProbe, stop);
    CapacityProbe first = probe.at(startRate);
    CapacityProbe lo = first.passed() ? first : null;
    CapacityProbe hi = first.passed() ? null : first;
    while (lo == null && probes.size() < maxRuns) {
      double r = whole ? Math.min(hi.rate() - 1, Math.floor(hi.rate() / growth)) : hi.rate() / growth;
      if (r < minRate) {
        return new CapacityResult(OptionalDouble.empty(), false, probes, Optional.empty(), axis);
      }
      CapacityProbe p = probe.at(r);
      if (p.passed()) {
        lo = p;
      } else {
        hi = p;
      }
    }
    while (hi == null && probes.size() < maxRuns) {
      if (lo.rate() >= maxRate) {
        return new CapacityResult(OptionalDouble.of(lo.rate()), true, probes, Optional.empty(), axis);
      }
      double up = whole ? Math.max(lo.rate() + 1, Math.rint(lo.rate() * growth)) : lo.rate() * growth;
      CapacityProbe p = probe.at(Math.min(maxRate, up));
      if (p.passed()) {
        lo = p;
      } else {
        hi = p;
      }
    }
    if (lo == null) {
      return new CapacityResult(OptionalDouble.empty(), false, probes, Optional.empty(), axis);
    }
    while (hi != null && (hi.rate() - lo.rate()) / lo.rate() > tolerance && (!whole || hi.rate() - lo.rate() > 1)
        && probes.size() < maxRuns) {
      CapacityProbe p = probe.at(whole ? nextWhole(lo, hi) : next(lo, hi));
      if (p.passed()) {
        lo = p;
      } else {
        hi = p;
      }
    }
    return new CapacityResult(OptionalDouble.of(lo.rate()), hi == null, probes, Optional.empty(), axis);
  }

  /** The next concurrency: the interpolated level rounded, strictly inside a bracket wider than one stream. */
  private double nextWhole(CapacityProbe lo, CapacityProbe hi) {
    return Math.max(lo.rate() + 1, Math.min(hi.rate() - 1, Math.rint(next(lo, hi))));
  }

  private double next(CapacityProbe lo, CapacityProbe hi) {
    double width = hi.rate() - lo.rate();
    double r = lo.rate() + width / 2;
    if (metric != null && Double.isFinite(lo.value()) && Double.isFinite(hi.value()) && hi.value() > lo.value()) {
      r = lo.rate() + (threshold - lo.value()) * width / (hi.value() - lo.value());
    }
    return Math.max(lo.rate() + 0.1 * width, Math.min(hi.rate() - 0.1 * width, r));
  }

  /** One probe of the search at a rate. */
  private interface Prober {
    CapacityProbe at(double rate);
  }

  private CapacityProbe probe(DoubleFunction<RunResult> runAtRate, double rate, List<CapacityProbe> probes,
      Consumer<CapacityProbe> onProbe, BooleanSupplier stop) {
    if (stop.getAsBoolean()) {
      throw new Stopped(probes, String.format(Locale.ROOT, "stopped before the probe at %s", level(rate)));
    }
    RunResult result = Objects.requireNonNull(runAtRate.apply(rate), "runAtRate returned null");
    CapacityProbe p;
    if (metric != null) {
      double v = metric.applyAsDouble(result);
      p = new CapacityProbe(rate, v, !Double.isNaN(v) && v <= threshold, result);
    } else {
      p = new CapacityProbe(rate, Double.NaN, slo.test(result), result);
    }
    probes.add(p);
    onProbe.accept(p);
    if (result.interrupted()) {
      throw new Stopped(probes, String.format(Locale.ROOT, "the probe at %s was interrupted (%s)", level(rate),
          result.interruption().orElseThrow().reason()));
    }
    if (p.clientHealth().isClientBound()) {
      throw new Stopped(probes, String.format(Locale.ROOT, "the probe at %s was CLIENT_BOUND (%s): its figures "
          + "are the client's, so the search stops instead of walking the %s down; free the client's machine "
          + "(or give the client more cores) and search again", level(rate), p.clientHealth().reasonText(),
          axis.word()));
    }
    return p;
  }

  /** A level in words: {@code 12.5 req/s} or {@code 8 streams}. */
  private String level(double level) {
    return axis == CapacityAxis.CONCURRENCY ? String.format(Locale.ROOT, "%d streams", (long) level)
        : String.format(Locale.ROOT, "%.4g req/s", level);
  }

  private static double positive(double v, String name) {
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(name + " must be finite and > 0, was " + v);
    }
    return v;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CapacitySearch[%s over %s, start %s, range [%s, %s], growth %s, tolerance %s, "
        + "max %d runs]", metric != null ? "metric <= " + threshold : "predicate", axis.word(), startRate, minRate,
        maxRate, growth, tolerance, maxRuns);
  }
}
