package io.infermark.core.load;

import java.util.Locale;
import java.util.OptionalDouble;
import java.util.SplittableRandom;

/**
 * A gamma renewal process; see {@link ArrivalProcess#gamma(double, double)}. Gaps are
 * Gamma(shape = burstiness, scale = 1 / (rate · burstiness)), so the mean gap is {@code 1/rate} and
 * the coefficient of variation {@code 1/sqrt(burstiness)}.
 */
final class GammaArrivals implements ArrivalProcess {
  private final double rate;
  private final double burstiness;

  GammaArrivals(double rate, double burstiness) {
    this.rate = Rates.check(rate);
    if (!(burstiness > 0)) {
      throw new IllegalArgumentException("burstiness must be > 0 (1 = Poisson, < 1 burstier, > 1 smoother, "
          + "infinity = constant), was " + burstiness);
    }
    this.burstiness = burstiness;
  }

  @Override
  public long[] schedule(int maxCount, long limitNanos, long seed) {
    Rates.checkLimits(maxCount, limitNanos);
    if (Double.isInfinite(burstiness)) {
      return new ConstantArrivals(rate).schedule(maxCount, limitNanos, seed);
    }
    SplittableRandom random = new SplittableRandom(seed);
    double meanGap = 1e9 / rate;
    if (limitNanos != Long.MAX_VALUE) {
      long exact = Math.round(rate * limitNanos / 1e9);
      if (exact <= maxCount) {
        return rescaled((int) exact, limitNanos, random, meanGap);
      }
    }
    Rates.Times t = new Rates.Times(maxCount, maxCount);
    double now = 0;
    while (!t.full()) {
      now += gap(random, meanGap);
      long at = Math.round(now);
      if (at >= limitNanos) {
        break;
      }
      t.add(at);
    }
    return t.toArray();
  }

  /**
   * Exactly {@code n} arrivals in {@code [0, limit)}: n + 1 gamma gaps are drawn and their partial
   * sums scaled so that the (n+1)-th would fall exactly on the limit.
   */
  private long[] rescaled(int n, long limitNanos, SplittableRandom random, double meanGap) {
    double[] sums = new double[n + 1];
    double now = 0;
    for (int i = 0; i <= n; i++) {
      now += gap(random, meanGap);
      sums[i] = now;
    }
    double scale = now > 0 ? limitNanos / now : 0;
    long[] t = new long[n];
    for (int i = 0; i < n; i++) {
      t[i] = Math.min(limitNanos - 1, (long) Math.floor(sums[i] * scale));
    }
    return t;
  }

  private double gap(SplittableRandom random, double meanGap) {
    return Randoms.gamma(random, burstiness) * meanGap / burstiness;
  }

  @Override
  public OptionalDouble nominalRate() {
    return OptionalDouble.of(rate);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "gamma(%s/s, burstiness %s)", rate, burstiness);
  }
}
