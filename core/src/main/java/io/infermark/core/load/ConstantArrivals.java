package io.infermark.core.load;

import java.util.OptionalDouble;

/** Evenly spaced arrivals; see {@link ArrivalProcess#constant(double)}. */
final class ConstantArrivals implements ArrivalProcess {
  private final double rate;

  ConstantArrivals(double rate) {
    this.rate = Rates.checkSchedulable(rate);
  }

  @Override
  public long[] schedule(int maxCount, long limitNanos, long seed) {
    Rates.checkLimits(maxCount, limitNanos);
    double gap = 1e9 / rate;
    int n = limitNanos == Long.MAX_VALUE ? maxCount : (int) Math.min(maxCount, Math.ceil(limitNanos / gap) + 1);
    long[] t = new long[n];
    int count = 0;
    for (int i = 0; i < n; i++) {
      long at = Rates.at(i * gap, limitNanos, i, maxCount, rate); // from i, not accumulated: no drift
      if (at < 0 || at >= limitNanos) {
        break;
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
    return "constant(" + rate + "/s)";
  }
}
