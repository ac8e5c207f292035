package io.infermark.core.sweep;

import io.infermark.core.RunResult;
import io.infermark.core.health.ClientHealth;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * A series of runs over load levels (rates, concurrencies, or a two-variable grid), one after
 * another in the given order, returning one result per level. Summaries and SLO checks are the
 * caller's functions of a {@link RunResult} (the {@code metrics} module's, or
 * {@link RecordPercentiles} here).
 *
 * <pre>{@code
 * Benchmark base = Benchmark.target(t).prompts(p).params(params);
 * List<SweepPoint<Double>> points = Sweep.rates(1, 2, 4, 8)
 *     .run(rate -> base.load(LoadProfile.poisson(rate).duration(Duration.ofMinutes(1))).run());
 * }</pre>
 *
 * <p>Each point carries its run's {@link SweepPoint#clientHealth() client health}: a level where the
 * client could not keep up measured the client, not the server, so {@link #lastPassing} never counts a
 * CLIENT_BOUND level as passing, and {@link #healthWarnings} names every level whose client was not OK.
 *
 * <p>Immutable. {@link #run} stops at the first run that throws (the exception propagates).
 */
public final class Sweep<L> {

  private final List<L> levels;

  private Sweep(List<L> levels) {
    if (levels.isEmpty()) {
      throw new IllegalArgumentException("a sweep needs at least one level");
    }
    this.levels = List.copyOf(levels);
  }

  /** A sweep over any levels. */
  public static <L> Sweep<L> over(List<L> levels) {
    return new Sweep<>(levels);
  }

  /**
   * A sweep over request rates, requests/s.
   *
   * @throws IllegalArgumentException if a rate is not finite and > 0
   */
  public static Sweep<Double> rates(double... rates) {
    List<Double> l = new ArrayList<>();
    for (double r : rates) {
      if (!(r > 0) || Double.isInfinite(r)) {
        throw new IllegalArgumentException("sweep rates must be finite and > 0, was " + r);
      }
      l.add(r);
    }
    return new Sweep<>(l);
  }

  /**
   * A sweep over closed-loop concurrencies.
   *
   * @throws IllegalArgumentException if a level is not > 0
   */
  public static Sweep<Integer> concurrency(int... levels) {
    List<Integer> l = new ArrayList<>();
    for (int c : levels) {
      if (c <= 0) {
        throw new IllegalArgumentException("sweep concurrencies must be > 0, was " + c);
      }
      l.add(c);
    }
    return new Sweep<>(l);
  }

  /** Every combination of two variables, {@code xs} outer and {@code ys} inner. */
  public static <X, Y> Sweep<GridPoint<X, Y>> grid(List<X> xs, List<Y> ys) {
    List<GridPoint<X, Y>> l = new ArrayList<>();
    for (X x : xs) {
      for (Y y : ys) {
        l.add(new GridPoint<>(x, y));
      }
    }
    return new Sweep<>(l);
  }

  /** The levels, in run order. */
  public List<L> levels() {
    return levels;
  }

  /** Runs {@code runner} at every level in order and returns one point per level. */
  public List<SweepPoint<L>> run(Function<L, RunResult> runner) {
    return run(runner, p -> { }, () -> false);
  }

  /**
   * Runs {@code runner} level by level, handing each point to {@code onPoint} as soon as its run ends (to show
   * it, or to save it, so a long sweep keeps its finished levels whatever happens later). Before each level it
   * asks {@code stop}; once that says so (a signal, a time limit) no further level runs. A level whose run was
   * interrupted is kept and ends the sweep. Returns the points of the levels that ran, in order.
   */
  public List<SweepPoint<L>> run(Function<L, RunResult> runner, Consumer<SweepPoint<L>> onPoint,
      BooleanSupplier stop) {
    Objects.requireNonNull(runner, "runner");
    Objects.requireNonNull(onPoint, "onPoint");
    Objects.requireNonNull(stop, "stop");
    List<SweepPoint<L>> points = new ArrayList<>();
    for (L level : levels) {
      if (stop.getAsBoolean()) {
        break;
      }
      SweepPoint<L> p = new SweepPoint<>(level, Objects.requireNonNull(runner.apply(level), "runner returned null"));
      points.add(p);
      onPoint.accept(p);
      if (p.result().interrupted()) {
        break;
      }
    }
    return List.copyOf(points);
  }

  /** A summary value of each point, in order. */
  public static <L> double[] values(List<SweepPoint<L>> points, ToDoubleFunction<RunResult> summary) {
    return points.stream().mapToDouble(p -> summary.applyAsDouble(p.result())).toArray();
  }

  /**
   * The last point, in run order, whose run meets {@code slo} and whose client was not
   * {@link io.infermark.core.health.HealthVerdict#CLIENT_BOUND CLIENT_BOUND}, if any (for increasing load
   * levels, the highest). A client-bound run's latencies are the client's, so it cannot show that the
   * server met the SLO.
   */
  public static <L> Optional<SweepPoint<L>> lastPassing(List<SweepPoint<L>> points, Predicate<RunResult> slo) {
    SweepPoint<L> last = null;
    for (SweepPoint<L> p : points) {
      if (!p.clientHealth().isClientBound() && slo.test(p.result())) {
        last = p;
      }
    }
    return Optional.ofNullable(last);
  }

  /**
   * One line per point whose client was DEGRADED or CLIENT_BOUND, naming the level, the verdict and its
   * reasons, e.g. {@code "level 64: client CLIENT_BOUND: hiccup p99 12.3 ms > 10 ms: the client's threads
   * could not run on time"}; empty when every client was OK or unmeasured.
   */
  public static <L> List<String> healthWarnings(List<SweepPoint<L>> points) {
    List<String> lines = new ArrayList<>();
    for (SweepPoint<L> p : points) {
      ClientHealth h = p.clientHealth();
      if (h.isWarning()) {
        lines.add("level " + p.level() + ": client " + h.verdict() + ": " + h.reasonText());
      }
    }
    return List.copyOf(lines);
  }

  @Override
  public String toString() {
    return levels.stream().map(Object::toString).collect(Collectors.joining(", ", "Sweep[", "]"));
  }
}
