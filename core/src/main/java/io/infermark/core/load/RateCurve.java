package io.infermark.core.load;

import java.util.Locale;

/**
 * A time-varying rate {@code r(t)} (requests/s, t in seconds) through its cumulative intensity
 * {@code Λ(t) = ∫₀ᵗ r}: arrivals are placed where Λ crosses given values, which is exact for any
 * curve whose Λ can be inverted.
 */
abstract class RateCurve {

  /**
   * The earliest time (s) at which Λ reaches {@code x}, skipping stretches where the rate is 0;
   * {@code +∞} if it never does.
   */
  abstract double inverse(double x);

  /** A one-line description. */
  @Override
  public abstract String toString();

  /** From {@code from} to {@code to} linearly over {@code seconds}, then {@code to} for ever. */
  static RateCurve linear(double from, double to, double seconds) {
    return new RateCurve() {
      private final double slope = (to - from) / seconds;
      private final double atEnd = (from + to) / 2 * seconds;

      @Override
      double inverse(double x) {
        if (x <= atEnd) {
          if (slope == 0) {
            return x / from;
          }
          // Root of slope/2·t² + from·t − x = 0, in the form that stays exact when slope is tiny.
          double disc = Math.max(0, from * from + 2 * slope * x);
          double denom = from + Math.sqrt(disc);
          if (denom > 0) {
            return 2 * x / denom;
          }
          return 0; // from == 0 and x == 0
        }
        return to > 0 ? seconds + (x - atEnd) / to : Double.POSITIVE_INFINITY;
      }

      @Override
      public String toString() {
        return String.format(Locale.ROOT, "linear ramp %s→%s/s over %s s", from, to, seconds);
      }
    };
  }

  /** From {@code from} to {@code to} geometrically over {@code seconds}, then {@code to} for ever. */
  static RateCurve exponential(double from, double to, double seconds) {
    if (from == to) {
      return linear(from, to, seconds);
    }
    return new RateCurve() {
      private final double k = Math.log(to / from) / seconds;
      private final double atEnd = from / k * Math.expm1(k * seconds);

      @Override
      double inverse(double x) {
        if (x <= atEnd) {
          return Math.log1p(k * x / from) / k;
        }
        return seconds + (x - atEnd) / to;
      }

      @Override
      public String toString() {
        return String.format(Locale.ROOT, "exponential ramp %s→%s/s over %s s", from, to, seconds);
      }
    };
  }

  /** Piecewise-constant rates, each held for its duration; nothing after the last step. */
  static RateCurve steps(double[] rates, double[] seconds) {
    double[] startTime = new double[rates.length];
    double[] startMass = new double[rates.length];
    double t = 0;
    double m = 0;
    for (int i = 0; i < rates.length; i++) {
      startTime[i] = t;
      startMass[i] = m;
      t += seconds[i];
      m += rates[i] * seconds[i];
    }
    double total = m;
    return new RateCurve() {
      @Override
      double inverse(double x) {
        if (x >= total) {
          return Double.POSITIVE_INFINITY; // the last step's end is exclusive
        }
        for (int i = rates.length - 1; i >= 0; i--) {
          if (rates[i] > 0 && x >= startMass[i]) {
            return startTime[i] + (x - startMass[i]) / rates[i];
          }
        }
        return Double.POSITIVE_INFINITY;
      }

      @Override
      public String toString() {
        StringBuilder s = new StringBuilder("steps");
        for (int i = 0; i < rates.length; i++) {
          s.append(i == 0 ? " " : ", ").append(rates[i]).append("/s for ").append(seconds[i]).append(" s");
        }
        return s.toString();
      }
    };
  }
}
