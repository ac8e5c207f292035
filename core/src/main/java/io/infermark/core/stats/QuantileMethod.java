package io.infermark.core.stats;

/**
 * How a percentile is computed from a sorted sample. Both are exact (no histogram buckets).
 */
public enum QuantileMethod {
  /**
   * Linear interpolation between the two nearest order statistics, at position {@code p·(n−1)};
   * identical to numpy's default ({@code method="linear"}) and to vLLM's reported percentiles.
   */
  LINEAR {
    @Override
    double compute(double[] sorted, double p) {
      double h = p * (sorted.length - 1);
      int lo = (int) Math.floor(h);
      if (lo >= sorted.length - 1) {
        return sorted[sorted.length - 1];
      }
      double frac = h - lo;
      return frac == 0 ? sorted[lo] : sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
    }
  },
  /**
   * The nearest-rank method: the smallest value with at least {@code p·n} values at or below it
   * (rank {@code ceil(p·n)}); always an observed value.
   */
  NEAREST_RANK {
    @Override
    double compute(double[] sorted, double p) {
      return sorted[Math.max(rank(p, sorted.length), 1) - 1];
    }
  };

  abstract double compute(double[] sorted, double p);

  /**
   * {@code ceil(p·n)}, except that a product within rounding error of a whole number is that
   * number: 0.14 × 100 is 14.000000000000002 in binary floating point, and its rank is 14.
   */
  static int rank(double p, int n) {
    double x = p * n;
    double nearest = Math.rint(x);
    return (int) (Math.abs(x - nearest) <= 1e-9 * Math.max(1, x) ? nearest : Math.ceil(x));
  }

  /**
   * The {@code p}-quantile of an ascending sample.
   *
   * @param sorted ascending values, at least one
   * @param p the quantile in [0, 1] (0.99 for P99)
   * @return the quantile
   * @throws IllegalArgumentException if the sample is empty or p is outside [0, 1]
   */
  public double quantile(double[] sorted, double p) {
    if (sorted.length == 0) {
      throw new IllegalArgumentException("cannot take a quantile of an empty sample");
    }
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("quantile must be in [0, 1], was " + p);
    }
    return compute(sorted, p);
  }
}
