package io.infermark.core.sweep;

import io.infermark.core.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * Finds the highest level at which a measurement still passes: steps up geometrically from a start level
 * (down, if the start fails) until one level passes and the next fails, then bisects between them until the
 * bracket is within a relative tolerance, within a bound on steps and on time. Levels are whatever the caller
 * measures: a rate, a number of streams (with {@link Builder#integral(boolean)} they are whole numbers).
 *
 * <p>It is the search behind the client capacity card (how many tokens per second, requests per second or
 * streams one client process holds before its own error bound passes a limit), and works for any monotone
 * pass/fail measurement: the level passes at and below some ceiling and fails above it. A noisy measurement
 * can make it settle on a level below the true ceiling (a failure at a level that would usually pass), never
 * on one above a level that failed. Immutable and reusable; {@link #run} calls the measurement on the
 * caller's thread, one level at a time.
 *
 * <pre>{@code
 * CeilingResult r = CeilingSearch.builder().start(1000).max(1_000_000).growth(2).tolerance(0.1)
 *     .budget(Duration.ofSeconds(30)).build()
 *     .run(level -> measureAt(level) <= 1.0 ? CeilingStep.pass(level, "") : CeilingStep.fail(level, ""));
 * }</pre>
 */
public final class CeilingSearch {

  /** Measures one level. */
  @FunctionalInterface
  public interface Measurement {
    /**
     * Measures {@code level} and says whether it passed.
     *
     * @param level the level to measure, between the search's minimum and maximum
     * @return the step, whose {@link CeilingStep#level()} should be {@code level}
     */
    CeilingStep measure(double level);
  }

  private final double start;
  private final double min;
  private final double max;
  private final double growth;
  private final double tolerance;
  private final boolean integral;
  private final int maxSteps;
  private final Duration budget;
  private final Clock clock;

  private CeilingSearch(Builder b) {
    this.start = b.start;
    this.min = b.min;
    this.max = b.max;
    this.growth = b.growth;
    this.tolerance = b.tolerance;
    this.integral = b.integral;
    this.maxSteps = b.maxSteps;
    this.budget = b.budget;
    this.clock = b.clock;
  }

  /** A builder: start 1, minimum 1, maximum 1e9, growth 2, tolerance 0.1, 40 steps, no time budget. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Runs the search.
   *
   * @param measurement measures one level
   * @return what was found; the ceiling is a lower bound when the budget ran out first
   */
  public CeilingResult run(Measurement measurement) {
    Objects.requireNonNull(measurement, "measurement");
    List<CeilingStep> steps = new ArrayList<>();
    long t0 = clock.nanoTime();
    long longestStep = 0;
    double lo = Double.NaN; // highest pass
    double hi = Double.NaN; // lowest failure
    double level = round(start);
    while (true) {
      long elapsed = clock.nanoTime() - t0;
      if (steps.size() >= maxSteps
          || (!steps.isEmpty() && !budget.isZero() && elapsed + longestStep > budget.toNanos())) {
        return result(lo, hi, CeilingResult.Outcome.BUDGET_SPENT, steps);
      }
      long s0 = clock.nanoTime();
      CeilingStep step = Objects.requireNonNull(measurement.measure(level), "the measurement returned null");
      longestStep = Math.max(longestStep, clock.nanoTime() - s0);
      steps.add(step);
      if (step.passed()) {
        lo = Double.isNaN(lo) ? level : Math.max(lo, level);
      } else {
        hi = Double.isNaN(hi) ? level : Math.min(hi, level);
      }
      if (Double.isNaN(hi)) { // only passes so far: step up
        if (level >= max) {
          return result(lo, hi, CeilingResult.Outcome.AT_MAX, steps);
        }
        level = round(Math.min(max, level * growth));
        continue;
      }
      if (Double.isNaN(lo)) { // only failures so far: step down
        if (level <= min) {
          return result(lo, hi, CeilingResult.Outcome.BELOW_MIN, steps);
        }
        level = round(Math.max(min, level / growth));
        continue;
      }
      if (hi - lo <= tolerance * lo) {
        return result(lo, hi, CeilingResult.Outcome.FOUND, steps);
      }
      double mid = round((lo + hi) / 2);
      if (mid <= lo || mid >= hi) { // whole numbers next to each other
        return result(lo, hi, CeilingResult.Outcome.FOUND, steps);
      }
      level = mid;
    }
  }

  private double round(double level) {
    double r = integral ? Math.floor(level) : level;
    return Math.max(min, Math.min(max, r));
  }

  private static CeilingResult result(double lo, double hi, CeilingResult.Outcome outcome, List<CeilingStep> steps) {
    return new CeilingResult(Double.isNaN(lo) ? OptionalDouble.empty() : OptionalDouble.of(lo),
        Double.isNaN(hi) ? OptionalDouble.empty() : OptionalDouble.of(hi), outcome, steps);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CeilingSearch[start %.6g, %.6g..%.6g, x%.3g, tolerance %.3g, %d steps, "
        + "budget %s%s]", start, min, max, growth, tolerance, maxSteps, budget.isZero() ? "none" : budget,
        integral ? ", whole numbers" : "");
  }

  /** Builds a {@link CeilingSearch}. */
  public static final class Builder {
    private double start = 1;
    private double min = 1;
    private double max = 1e9;
    private double growth = 2;
    private double tolerance = 0.1;
    private boolean integral;
    private int maxSteps = 40;
    private Duration budget = Duration.ZERO;
    private Clock clock = Clock.system();

    private Builder() {}

    /** The first level measured, greater than 0 (clamped into [min, max]); default 1. */
    public Builder start(double level) {
      this.start = positive(level, "start");
      return this;
    }

    /** The lowest level the search steps down to when the start fails, greater than 0; default 1. */
    public Builder min(double level) {
      this.min = positive(level, "min");
      return this;
    }

    /** The highest level measured, greater than 0; default 1e9. */
    public Builder max(double level) {
      this.max = positive(level, "max");
      return this;
    }

    /** The factor between levels while stepping up or down, greater than 1; default 2. */
    public Builder growth(double factor) {
      if (!(factor > 1) || !Double.isFinite(factor)) {
        throw new IllegalArgumentException("growth must be a finite factor > 1, was " + factor);
      }
      this.growth = factor;
      return this;
    }

    /**
     * How close the bracket must be before the search stops: (lowest failure − highest pass) ≤ tolerance × highest
     * pass; greater than 0; default 0.1.
     */
    public Builder tolerance(double relative) {
      this.tolerance = positive(relative, "tolerance");
      return this;
    }

    /** Whether levels are whole numbers (streams, connections); default false. */
    public Builder integral(boolean wholeNumbers) {
      this.integral = wholeNumbers;
      return this;
    }

    /** The most measurements, at least 1; default 40. */
    public Builder maxSteps(int steps) {
      if (steps < 1) {
        throw new IllegalArgumentException("maxSteps must be >= 1, was " + steps);
      }
      this.maxSteps = steps;
      return this;
    }

    /**
     * The time the search may take: no step after the first starts when the time spent plus the longest step so
     * far would pass it (so it ends within about one step of the budget, and always measures the start level);
     * zero for none (the default).
     */
    public Builder budget(Duration d) {
      Objects.requireNonNull(d, "budget");
      if (d.isNegative()) {
        throw new IllegalArgumentException("budget must be >= 0, was " + d);
      }
      this.budget = d;
      return this;
    }

    /** The clock the budget is read from; default {@link Clock#system()}. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The search.
     *
     * @throws IllegalArgumentException when min exceeds max
     */
    public CeilingSearch build() {
      if (min > max) {
        throw new IllegalArgumentException("min (" + min + ") must be <= max (" + max + ")");
      }
      return new CeilingSearch(this);
    }

    private static double positive(double v, String name) {
      if (!(v > 0) || !Double.isFinite(v)) {
        throw new IllegalArgumentException(name + " must be a finite number > 0, was " + v);
      }
      return v;
    }
  }
}
