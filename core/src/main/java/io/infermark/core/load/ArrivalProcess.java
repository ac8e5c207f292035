package io.infermark.core.load;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * When open-loop requests are meant to be sent. A process produces its whole schedule up front,
 * as absolute intended times from a seed, so a run is reproducible and every request's lateness
 * can be measured against its own intended time.
 *
 * <pre>{@code
 * ArrivalProcess.poisson(20)                                   // memoryless, 20 req/s
 * ArrivalProcess.gamma(20, 0.25)                               // same mean, CV 2: bursty
 * ArrivalProcess.linearRamp(1, 50, Duration.ofMinutes(5))      // then 50 req/s
 * ArrivalProcess.sequence(List.of(Stage.of(constant(5), Duration.ofMinutes(1)),
 *                                 Stage.of(poisson(40), Duration.ofMinutes(2))))
 * }</pre>
 */
public interface ArrivalProcess {

  /**
   * The intended send times, in nanoseconds from the run's start, ascending.
   *
   * @param maxCount stop after this many arrivals
   * @param limitNanos stop before this time (Long.MAX_VALUE for none)
   * @param seed seed of any randomness
   * @return the schedule; may be empty if the first arrival falls after the limit
   */
  long[] schedule(int maxCount, long limitNanos, long seed);

  /** The mean rate in requests per second this process is configured for, if it has one. */
  OptionalDouble nominalRate();

  /** Requests sent every {@code 1/rate} seconds exactly, the first at the start. */
  static ArrivalProcess constant(double requestsPerSecond) {
    return new ConstantArrivals(requestsPerSecond);
  }

  /** A Poisson process: exponential gaps with mean {@code 1/rate}, the first one after the start too. */
  static ArrivalProcess poisson(double requestsPerSecond) {
    return new PoissonArrivals(requestsPerSecond);
  }

  /**
   * A gamma renewal process with a burstiness factor: gaps are Gamma(shape = burstiness) with mean
   * {@code 1/rate}, so their coefficient of variation is {@code 1/sqrt(burstiness)}. Burstiness 1 is
   * Poisson, below 1 burstier, above 1 smoother, {@link Double#POSITIVE_INFINITY} constant (vLLM's
   * {@code --burstiness}).
   *
   * <p>When the run's duration is what limits it, the schedule is rescaled so that exactly
   * {@code round(rate × duration)} requests fall inside it: {@code n + 1} gaps are drawn and their
   * partial sums scaled so that the {@code (n+1)}-th arrival would land on the end. With a count limit
   * reached first, arrivals are the plain renewal process.
   *
   * @throws IllegalArgumentException if the rate is not a finite number > 0 or burstiness is not > 0
   */
  static ArrivalProcess gamma(double requestsPerSecond, double burstiness) {
    return new GammaArrivals(requestsPerSecond, burstiness);
  }

  /**
   * A two-state Markov-modulated Poisson process (bursty clusters): Poisson at {@code calmRate}
   * during calm spells and at {@code burstRate} during bursts, each spell lasting an exponential time
   * with the given mean. Starts calm. Its nominal rate is the stationary mean
   * {@code (calmRate·meanCalm + burstRate·meanBurst) / (meanCalm + meanBurst)}.
   *
   * @param calmRate requests/s while calm, >= 0
   * @param burstRate requests/s during a burst, > 0
   */
  static ArrivalProcess markovModulated(double calmRate, double burstRate, Duration meanCalm, Duration meanBurst) {
    return new MarkovModulatedArrivals(calmRate, burstRate, Rates.positiveNanos(meanCalm, "meanCalm"),
        Rates.positiveNanos(meanBurst, "meanBurst"));
  }

  /**
   * Poisson-sized bursts: bursts start as a Poisson process at {@code burstsPerSecond}; each holds
   * {@code 1 + Poisson(meanBurstSize − 1)} requests (never empty, mean {@code meanBurstSize}) sent
   * {@code spacing} apart from the burst's start ({@link Duration#ZERO} for all at once). Nominal rate
   * {@code burstsPerSecond × meanBurstSize}.
   */
  static ArrivalProcess bursts(double burstsPerSecond, double meanBurstSize, Duration spacing) {
    Objects.requireNonNull(spacing, "spacing");
    return new BurstArrivals(burstsPerSecond, meanBurstSize, spacing.toNanos());
  }

  /**
   * A rate rising (or falling) linearly from {@code from} to {@code to} requests/s over
   * {@code over}, then holding {@code to}. Arrivals are even in cumulative intensity: the i-th at
   * the time {@code Λ⁻¹(i)} where the ramp's integral reaches i, the first at the start. Use
   * {@link #poissonLinearRamp} for random arrivals.
   *
   * @throws IllegalArgumentException if a rate is negative or not finite, or both are 0
   */
  static ArrivalProcess linearRamp(double from, double to, Duration over) {
    return new CurveArrivals(linearCurve(from, to, over), false);
  }

  /** {@link #linearRamp} with Poisson arrivals (a non-homogeneous Poisson process by time rescaling). */
  static ArrivalProcess poissonLinearRamp(double from, double to, Duration over) {
    return new CurveArrivals(linearCurve(from, to, over), true);
  }

  /**
   * A rate growing geometrically from {@code from} to {@code to} requests/s over {@code over}
   * ({@code r(t) = from·(to/from)^(t/over)}), then holding {@code to}; arrivals even in intensity.
   *
   * @throws IllegalArgumentException unless both rates are finite and > 0
   */
  static ArrivalProcess exponentialRamp(double from, double to, Duration over) {
    return new CurveArrivals(RateCurve.exponential(Rates.check(from, "from"), Rates.check(to, "to"),
        Rates.positiveNanos(over, "ramp duration") / 1e9), false);
  }

  /** {@link #exponentialRamp} with Poisson arrivals. */
  static ArrivalProcess poissonExponentialRamp(double from, double to, Duration over) {
    return ((CurveArrivals) exponentialRamp(from, to, over)).poisson();
  }

  /**
   * Stairs: {@code steps} constant-rate steps of {@code stepDuration} each, at {@code startRate},
   * {@code startRate + increment}, ...; arrivals even in intensity across step boundaries, none
   * after the last step.
   *
   * @throws IllegalArgumentException if a step's rate would be negative, or steps &lt; 1
   */
  static ArrivalProcess stairs(double startRate, double increment, int steps, Duration stepDuration) {
    if (steps < 1) {
      throw new IllegalArgumentException("stairs need at least one step, was " + steps);
    }
    double[] rates = new double[steps];
    double[] seconds = new double[steps];
    double length = Rates.positiveNanos(stepDuration, "stepDuration") / 1e9;
    for (int i = 0; i < steps; i++) {
      rates[i] = Rates.checkNonNegative(startRate + i * increment, "rate of step " + i);
      seconds[i] = length;
    }
    if (startRate == 0 && increment <= 0) {
      throw new IllegalArgumentException("stairs whose every step has rate 0 never send a request");
    }
    return new CurveArrivals(RateCurve.steps(rates, seconds), false);
  }

  /**
   * Stages one after another, each for its duration and with its schedule starting at the stage's
   * start; nothing after the last stage. Stage k is seeded with {@code Randoms.mix(seed, k)}.
   */
  static ArrivalProcess sequence(List<Stage> stages) {
    return new SequenceArrivals(stages);
  }

  /**
   * Several processes at once (for example a steady Poisson base plus bursts), their schedules
   * merged in time order. Component k is seeded with {@code Randoms.mix(seed, k)}.
   */
  static ArrivalProcess overlay(List<ArrivalProcess> processes) {
    return new OverlayArrivals(processes);
  }

  /** {@link #overlay(List)} of the given processes. */
  static ArrivalProcess overlay(ArrivalProcess... processes) {
    return overlay(List.of(processes));
  }

  private static RateCurve linearCurve(double from, double to, Duration over) {
    Rates.checkNonNegative(from, "from");
    Rates.checkNonNegative(to, "to");
    if (from == 0 && to == 0) {
      throw new IllegalArgumentException("a ramp from 0 to 0 requests/s never sends a request");
    }
    return RateCurve.linear(from, to, Rates.positiveNanos(over, "ramp duration") / 1e9);
  }
}
