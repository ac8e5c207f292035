package io.infermark.core.load;

import java.util.Locale;
import java.util.OptionalDouble;
import java.util.SplittableRandom;

/**
 * A two-state Markov-modulated Poisson process; see
 * {@link ArrivalProcess#markovModulated(double, double, java.time.Duration, java.time.Duration)}.
 * The process starts calm; in each state it stays an exponential time with the state's mean, and
 * arrivals are Poisson at the state's rate meanwhile.
 */
final class MarkovModulatedArrivals implements ArrivalProcess {
  private final double[] rates;
  private final double[] meanStayNanos;

  MarkovModulatedArrivals(double calmRate, double burstRate, long meanCalmNanos, long meanBurstNanos) {
    this.rates = new double[] {Rates.checkNonNegative(calmRate, "calmRate"), Rates.check(burstRate, "burstRate")};
    this.meanStayNanos = new double[] {meanCalmNanos, meanBurstNanos};
  }

  @Override
  public long[] schedule(int maxCount, long limitNanos, long seed) {
    Rates.checkLimits(maxCount, limitNanos);
    SplittableRandom random = new SplittableRandom(seed);
    Rates.Times t = new Rates.Times(maxCount, limitNanos == Long.MAX_VALUE ? maxCount
        : nominalRate().getAsDouble() * limitNanos / 1e9);
    int state = 0;
    double now = 0;
    double stateEnd = Randoms.exponential(random) * meanStayNanos[0];
    while (!t.full() && now < limitNanos) {
      double next = rates[state] > 0 ? now + Randoms.exponential(random) * 1e9 / rates[state]
          : Double.POSITIVE_INFINITY;
      if (next >= stateEnd) {
        // Memorylessness: the pending gap is discarded at a switch and redrawn at the new rate.
        now = stateEnd;
        state = 1 - state;
        stateEnd = now + Randoms.exponential(random) * meanStayNanos[state];
        continue;
      }
      now = next;
      long at = Math.round(now);
      if (at >= limitNanos) {
        break;
      }
      t.add(at);
    }
    return t.toArray();
  }

  /** The stationary mean rate: each state's rate weighted by its share of time. */
  @Override
  public OptionalDouble nominalRate() {
    double total = meanStayNanos[0] + meanStayNanos[1];
    return OptionalDouble.of((rates[0] * meanStayNanos[0] + rates[1] * meanStayNanos[1]) / total);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "mmpp(calm %s/s for ~%.3f s, burst %s/s for ~%.3f s)", rates[0],
        meanStayNanos[0] / 1e9, rates[1], meanStayNanos[1] / 1e9);
  }
}
