package io.infermark.core.load;

import java.util.OptionalDouble;
import java.util.SplittableRandom;

/**
 * Arrivals following a {@link RateCurve}: evenly in intensity (the i-th at {@code Λ⁻¹(i)}, so the
 * first at the start, like {@link ConstantArrivals}) or as a non-homogeneous Poisson process by time
 * rescaling (the i-th at {@code Λ⁻¹(E₁ + … + Eᵢ)} with standard exponential {@code Eⱼ}).
 */
final class CurveArrivals implements ArrivalProcess {
  private final RateCurve curve;
  private final boolean poisson;

  CurveArrivals(RateCurve curve, boolean poisson) {
    this.curve = curve;
    this.poisson = poisson;
  }

  /** The same curve with Poisson arrivals. */
  CurveArrivals poisson() {
    return new CurveArrivals(curve, true);
  }

  @Override
  public long[] schedule(int maxCount, long limitNanos, long seed) {
    Rates.checkLimits(maxCount, limitNanos);
    SplittableRandom random = new SplittableRandom(seed);
    Rates.Times t = new Rates.Times(maxCount, Math.min(maxCount, 1 << 16));
    double mass = poisson ? Randoms.exponential(random) : 0;
    long last = 0;
    while (!t.full()) {
      double seconds = curve.inverse(mass);
      if (!(seconds * 1e9 < limitNanos)) {
        break;
      }
      long at = Math.max(last, Math.round(seconds * 1e9));
      if (at >= limitNanos) {
        break;
      }
      t.add(at);
      last = at;
      mass += poisson ? Randoms.exponential(random) : 1;
    }
    return t.toArray();
  }

  @Override
  public OptionalDouble nominalRate() {
    return OptionalDouble.empty();
  }

  @Override
  public String toString() {
    return curve + (poisson ? " (Poisson)" : "");
  }
}
