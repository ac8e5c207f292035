package io.infermark.core.load;

import java.util.Locale;
import java.util.OptionalDouble;
import java.util.SplittableRandom;

/**
 * Poisson-sized bursts at Poisson epochs; see {@link ArrivalProcess#bursts(double, double, java.time.Duration)}.
 * A burst holds {@code 1 + Poisson(meanSize - 1)} requests (so never empty, mean {@code meanSize}),
 * sent {@code spacing} apart from the burst's epoch.
 */
final class BurstArrivals implements ArrivalProcess {
  private final double burstsPerSecond;
  private final double meanSize;
  private final long spacingNanos;

  BurstArrivals(double burstsPerSecond, double meanSize, long spacingNanos) {
    this.burstsPerSecond = Rates.check(burstsPerSecond, "burstsPerSecond");
    if (!(meanSize >= 1) || Double.isInfinite(meanSize)) {
      throw new IllegalArgumentException("meanBurstSize must be a finite number >= 1, was " + meanSize);
    }
    if (spacingNanos < 0) {
      throw new IllegalArgumentException("burst spacing must be >= 0, was " + spacingNanos + " ns");
    }
    this.meanSize = meanSize;
    this.spacingNanos = spacingNanos;
  }

  @Override
  public long[] schedule(int maxCount, long limitNanos, long seed) {
    Rates.checkLimits(maxCount, limitNanos);
    SplittableRandom random = new SplittableRandom(seed);
    Rates.Times t = new Rates.Times(maxCount, limitNanos == Long.MAX_VALUE ? maxCount
        : burstsPerSecond * meanSize * limitNanos / 1e9);
    double epoch = 0;
    long last = Long.MIN_VALUE;
    while (!t.full()) {
      epoch += Randoms.exponential(random) * 1e9 / burstsPerSecond;
      long start = Math.round(epoch);
      if (start >= limitNanos) {
        break;
      }
      int size = 1 + Randoms.poisson(random, meanSize - 1);
      for (int k = 0; k < size && !t.full(); k++) {
        // A burst that overruns the next one's epoch keeps the schedule ascending.
        long at = Math.max(start + k * spacingNanos, last);
        if (at >= limitNanos) {
          break;
        }
        t.add(at);
        last = at;
      }
    }
    return t.toArray();
  }

  @Override
  public OptionalDouble nominalRate() {
    return OptionalDouble.of(burstsPerSecond * meanSize);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "bursts(%s/s, mean size %s, spacing %.3f ms)", burstsPerSecond, meanSize,
        spacingNanos / 1e6);
  }
}
