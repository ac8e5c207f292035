package io.infermark.core.load;

import java.util.OptionalDouble;
import java.util.SplittableRandom;

/** Exponential inter-arrival gaps; see {@link ArrivalProcess#poisson(double)}. */
final class PoissonArrivals implements ArrivalProcess {
  private final double rate;

  PoissonArrivals(double rate) {
    this.rate = Rates.checkSchedulable(rate);
  }

  @Override
  public long[] schedule(int maxCount, long limitNanos, long seed) {
    Rates.checkLimits(maxCount, limitNanos);
    SplittableRandom random = new SplittableRandom(seed);
    double meanGap = 1e9 / rate;
    int capacity = limitNanos == Long.MAX_VALUE ? maxCount
        : (int) Math.min(maxCount, 16 + 2 * Math.ceil(limitNanos / meanGap));
    long[] t = new long[Math.max(capacity, 0)];
    int count = 0;
    double now = 0;
    while (count < maxCount) {
      now += -Math.log(1.0 - random.nextDouble()) * meanGap; // 1-u is in (0, 1], so the log is finite
      long at = Rates.at(now, limitNanos, count, maxCount, rate);
      if (at < 0 || at >= limitNanos) {
        break;
      }
      if (count == t.length) {
        t = java.util.Arrays.copyOf(t, Math.min(maxCount, t.length * 2 + 16));
      }
      t[count++] = at;
    }
    return Rates.trim(t, count);
  }

  @Override
  public OptionalDouble nominalRate() {
    return OptionalDouble.of(rate);
  }

  @Override
  public String toString() {
    return "poisson(" + rate + "/s)";
  }
}
