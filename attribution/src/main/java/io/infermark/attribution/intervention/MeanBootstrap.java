package io.infermark.attribution.intervention;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Arrays;
import org.apache.commons.statistics.distribution.NormalDistribution;

/**
 * A bootstrap confidence interval for the mean of a few units (the per-repetition differences of an
 * intervention experiment): each of {@code resamples} resamples draws {@code n} units with
 * replacement, and the interval is read off the resamples' means.
 *
 * <p>The draws are reproducible across languages: a SplitMix64 generator seeded with {@code seed}
 * ({@code state += 0x9E3779B97F4A7C15}, then the standard mix), and unit index
 * {@code (next >>> 1) % n}, resample by resample, draw by draw. Everything after the draws is
 * {@code scipy.stats.bootstrap((units,), np.mean, method=...)} (scipy 1.17) step by step, so that
 * scipy given the same resamples returns the same interval to the last bit or two:
 *
 * <ul>
 *   <li>every mean (the estimate, each resample's, each jackknife value, the jackknife's own mean) is
 *       {@code np.mean}: numpy's pairwise sum (below 8 values a plain left-to-right sum from 0; up
 *       to 128, eight running sums combined as {@code ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))} plus the
 *       rest; beyond, the two halves split at a multiple of 8) divided by the count. Two resamples
 *       holding the same units in another order can differ in the last bit, and then they do not
 *       tie with the estimate, in scipy as here;
 *   <li>BCa's bias correction {@code z0 = Φ⁻¹((#below + #at-or-below) / 2B)} and acceleration
 *       {@code a = (1/6) (ΣU³/n³) / (ΣU²/n²)^{3/2}}, {@code U_i = (n − 1)(θ̄_(·) − θ_(i))} over the
 *       jackknife means, as {@code scipy.stats._resampling._bca_interval};
 *   <li>the values at the (adjusted) levels {@code p} come from {@code scipy.stats.quantile}'s
 *       {@code linear} method: {@code jg = p·B + (1 − p)}, {@code j = ⌊jg⌋ − 1},
 *       {@code g = jg mod 1}, value {@code (1 − g)·y[j] + g·y[j + 1]} on the sorted means (indices
 *       clipped to the ends). The same quantile as numpy's {@code (B − 1)p} interpolation in exact
 *       arithmetic, but computed as scipy does, so that a level landing on a knot gives scipy's knot.
 * </ul>
 *
 * <p>Where the sum of the units leaves the double range (numpy would give inf or nan), a mean is
 * summed exactly in decimal instead.
 */
final class MeanBootstrap {

  private static final NormalDistribution NORMAL = NormalDistribution.of(0, 1);

  /** The interval and how it was obtained. */
  record Interval(double lower, double upper, IntervalMethod method) {}

  private MeanBootstrap() {}

  /**
   * The interval for the mean of {@code units}.
   *
   * @throws IllegalArgumentException if there are fewer than two units, a unit is not finite, the
   *     confidence is not in (0, 1) or there are fewer than 100 resamples
   */
  static Interval interval(double[] units, double confidence, int resamples, long seed, IntervalMethod method) {
    int n = units.length;
    if (n < 2) {
      throw new IllegalArgumentException("a bootstrap interval needs at least 2 units, was " + n);
    }
    for (double u : units) {
      if (!Double.isFinite(u)) {
        throw new IllegalArgumentException("bootstrap units must be finite, was " + Arrays.toString(units));
      }
    }
    if (!(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException("confidence must be in (0, 1), was " + confidence);
    }
    if (resamples < 100) {
      throw new IllegalArgumentException("resamples must be at least 100, was " + resamples);
    }
    double[] means = resampledMeans(units, resamples, seed);
    Arrays.sort(means);
    double alpha = (1 - confidence) / 2;
    if (method == IntervalMethod.BCA) {
      double[] levels = bcaLevels(units, means, alpha);
      if (levels != null) {
        return new Interval(quantile(means, levels[0]), quantile(means, levels[1]), IntervalMethod.BCA);
      }
    }
    return new Interval(quantile(means, alpha), quantile(means, 1 - alpha), IntervalMethod.PERCENTILE);
  }

  /** {@code np.mean(values)}: numpy's pairwise sum divided by the count (exact decimal if it overflows). */
  static double mean(double[] values) {
    return mean(values, 0, values.length);
  }

  /** The means of {@code resamples} resamples, in draw order. */
  static double[] resampledMeans(double[] units, int resamples, long seed) {
    int n = units.length;
    double[] means = new double[resamples];
    double[] drawn = new double[n];
    long state = seed;
    for (int b = 0; b < resamples; b++) {
      for (int i = 0; i < n; i++) {
        state += 0x9E3779B97F4A7C15L;
        int index = (int) ((mix(state) >>> 1) % n);
        drawn[i] = units[index];
      }
      means[b] = mean(drawn, 0, n);
    }
    return means;
  }

  /** The mean of {@code values[from, from + length)} as {@code np.mean} computes it. */
  private static double mean(double[] values, int from, int length) {
    double sum = pairwiseSum(values, from, length);
    if (Double.isFinite(sum)) {
      return sum / length;
    }
    // The sum left the double range (the mean may not have): sum exactly in decimal instead.
    BigDecimal exact = BigDecimal.ZERO;
    for (int i = from; i < from + length; i++) {
      exact = exact.add(new BigDecimal(values[i]));
    }
    return exact.divide(BigDecimal.valueOf(length), MathContext.DECIMAL128).doubleValue();
  }

  /**
   * {@code np.add.reduce}: the reduction's initial 0.0 plus numpy's {@code pairwise_sum} for doubles
   * (numpy/_core/src/umath/loops_utils.h.src), the same additions in the same order, so the same
   * rounding.
   */
  static double pairwiseSum(double[] a, int from, int n) {
    return 0.0 + pairwise(a, from, n);
  }

  private static double pairwise(double[] a, int from, int n) {
    if (n < 8) {
      double res = 0.0;
      for (int i = 0; i < n; i++) {
        res += a[from + i];
      }
      return res;
    }
    if (n <= 128) {
      double r0 = a[from];
      double r1 = a[from + 1];
      double r2 = a[from + 2];
      double r3 = a[from + 3];
      double r4 = a[from + 4];
      double r5 = a[from + 5];
      double r6 = a[from + 6];
      double r7 = a[from + 7];
      int i = 8;
      for (; i < n - (n % 8); i += 8) {
        r0 += a[from + i];
        r1 += a[from + i + 1];
        r2 += a[from + i + 2];
        r3 += a[from + i + 3];
        r4 += a[from + i + 4];
        r5 += a[from + i + 5];
        r6 += a[from + i + 6];
        r7 += a[from + i + 7];
      }
      double res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
      for (; i < n; i++) {
        res += a[from + i];
      }
      return res;
    }
    int n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise(a, from, n2) + pairwise(a, from + n2, n - n2);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** The BCa quantile levels, or null when they are undefined (scipy's interval would be nan). */
  static double[] bcaLevels(double[] units, double[] sortedMeans, double alpha) {
    int n = units.length;
    double estimate = mean(units);
    // z0 from the share of resamples below the estimate, ties counted half (scipy's
    // _percentile_of_score, the mean of percentileofscore's "strict" and "weak").
    int below = 0;
    int atOrBelow = 0;
    for (double m : sortedMeans) {
      if (m < estimate) {
        below++;
      }
      if (m <= estimate) {
        atOrBelow++;
      }
    }
    double z0 = NORMAL.inverseCumulativeProbability((below + atOrBelow) / (2.0 * sortedMeans.length));
    // Jackknife: the mean without unit i, their mean, and the acceleration from their skewness, in
    // scipy's order of operations.
    double[] jack = new double[n];
    double[] others = new double[n - 1];
    for (int i = 0; i < n; i++) {
      for (int j = 0, k = 0; j < n; j++) {
        if (j != i) {
          others[k++] = units[j];
        }
      }
      jack[i] = mean(others);
    }
    double jackMean = mean(jack);
    double[] cubes = new double[n];
    double[] squares = new double[n];
    double nd = n;
    for (int i = 0; i < n; i++) {
      double u = (nd - 1) * (jackMean - jack[i]);
      cubes[i] = Math.pow(u, 3);
      squares[i] = u * u;
    }
    double num = pairwiseSum(cubes, 0, n) / (nd * nd * nd);
    double den = pairwiseSum(squares, 0, n) / (nd * nd);
    double a = 1.0 / 6 * num / Math.pow(den, 1.5);
    if (!Double.isFinite(z0) || !Double.isFinite(a)) {
      return null;
    }
    double zLow = NORMAL.inverseCumulativeProbability(alpha);
    double num1 = z0 + zLow;
    double num2 = z0 - zLow;
    double low = NORMAL.cumulativeProbability(z0 + num1 / (1 - a * num1));
    double high = NORMAL.cumulativeProbability(z0 + num2 / (1 - a * num2));
    if (!Double.isFinite(low) || !Double.isFinite(high)) {
      return null;
    }
    return new double[] {low, high};
  }

  /**
   * {@code scipy.stats.quantile(sorted, p, method="linear")}: {@code jg = p·n + (1 − p)},
   * {@code j = ⌊jg⌋ − 1}, {@code g = jg mod 1}, {@code (1 − g)·y[j] + g·y[j + 1]}, indices clipped to
   * {@code [0, n − 1]} and {@code g = 0} below the first.
   */
  static double quantile(double[] sorted, double p) {
    int n = sorted.length;
    double jg = p * n + (1 - p);
    double jp1 = Math.floor(jg);
    double j = jp1 - 1;
    double g = jg - jp1;
    if (j < 0) {
      g = 0;
    }
    int lo = (int) Math.min(Math.max(j, 0), n - 1);
    int hi = (int) Math.min(Math.max(jp1, 0), n - 1);
    return (1 - g) * sorted[lo] + g * sorted[hi];
  }
}
