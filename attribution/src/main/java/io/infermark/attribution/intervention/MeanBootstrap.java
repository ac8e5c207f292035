package io.infermark.attribution.intervention;

import io.infermark.core.stats.QuantileMethod;
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
 * {@code (next >>> 1) % n}, resample by resample, draw by draw. Tests replay the same stream in
 * numpy to check the interval. Every mean (the estimate, each resample's, the jackknife's) is the
 * correctly rounded sum over the count, so equal sums give equal means whatever the order of the
 * units: resamples that tie with the estimate are seen as ties.
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

  /**
   * The mean of {@code values}: their exact sum, rounded once to a double (Shewchuk's algorithm, as
   * Python's {@code math.fsum}), divided by their count. It does not depend on the order of the
   * values, so a resample holding the data's own units (in any order) has exactly the estimate's
   * value and counts as a tie, as it does in scipy; a left-to-right sum can round the same units
   * two ways (10.000000000000002 for units whose mean is 1.25).
   */
  static double mean(double[] values) {
    return mean(values, values.length, new double[values.length + 1]);
  }

  /** The means of {@code resamples} resamples, in draw order. */
  static double[] resampledMeans(double[] units, int resamples, long seed) {
    int n = units.length;
    double[] means = new double[resamples];
    double[] drawn = new double[n];
    double[] partials = new double[n + 1];
    long state = seed;
    for (int b = 0; b < resamples; b++) {
      for (int i = 0; i < n; i++) {
        state += 0x9E3779B97F4A7C15L;
        int index = (int) ((mix(state) >>> 1) % n);
        drawn[i] = units[index];
      }
      means[b] = mean(drawn, n, partials);
    }
    return means;
  }

  /** The mean of the first {@code length} values, {@code partials} scratch space of at least length + 1. */
  private static double mean(double[] values, int length, double[] partials) {
    double sum = exactSum(values, length, partials);
    if (Double.isFinite(sum)) {
      return sum / length;
    }
    // The sum left the double range (the mean may not have): sum exactly in decimal instead.
    BigDecimal exact = BigDecimal.ZERO;
    for (int i = 0; i < length; i++) {
      exact = exact.add(new BigDecimal(values[i]));
    }
    return exact.divide(BigDecimal.valueOf(length), MathContext.DECIMAL128).doubleValue();
  }

  /**
   * The sum of the first {@code length} values rounded once, half to even: Shewchuk's non-overlapping
   * partials (Python's {@code math.fsum}); not finite if an intermediate sum overflowed.
   */
  private static double exactSum(double[] values, int length, double[] partials) {
    int count = 0;
    for (int k = 0; k < length; k++) {
      double x = values[k];
      int kept = 0;
      for (int j = 0; j < count; j++) {
        double y = partials[j];
        if (Math.abs(x) < Math.abs(y)) {
          double t = x;
          x = y;
          y = t;
        }
        double hi = x + y;
        double lo = y - (hi - x);
        if (lo != 0) {
          partials[kept++] = lo;
        }
        x = hi;
      }
      if (!Double.isFinite(x)) {
        return x;
      }
      partials[kept] = x;
      count = kept + 1;
    }
    if (count == 0) {
      return 0;
    }
    // Add the partials from the largest down, stopping at the first inexact step; then correct a
    // half-way case the way math.fsum does (the rest of the partials decides the rounding).
    int i = count - 1;
    double hi = partials[i];
    double lo = 0;
    while (i > 0) {
      double x = hi;
      double y = partials[--i];
      hi = x + y;
      lo = y - (hi - x);
      if (lo != 0) {
        break;
      }
    }
    if (i > 0 && ((lo < 0 && partials[i - 1] < 0) || (lo > 0 && partials[i - 1] > 0))) {
      double y = lo * 2;
      double x = hi + y;
      if (y == x - hi) {
        hi = x;
      }
    }
    return hi;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** The BCa quantile levels, or null when they are undefined. */
  private static double[] bcaLevels(double[] units, double[] sortedMeans, double alpha) {
    int n = units.length;
    double[] partials = new double[n + 1];
    double estimate = mean(units, n, partials);
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
    // Jackknife: the mean without unit i (computed as every other mean is), and the acceleration from
    // their skewness.
    double[] jack = new double[n];
    double[] others = new double[n - 1];
    double jackMean = 0;
    for (int i = 0; i < n; i++) {
      for (int j = 0, k = 0; j < n; j++) {
        if (j != i) {
          others[k++] = units[j];
        }
      }
      jack[i] = mean(others, n - 1, partials);
      jackMean += jack[i];
    }
    jackMean /= n;
    double num = 0;
    double den = 0;
    for (double j : jack) {
      double d = jackMean - j;
      num += d * d * d;
      den += d * d;
    }
    double a = num / (6 * Math.pow(den, 1.5));
    if (!Double.isFinite(z0) || !Double.isFinite(a)) {
      return null;
    }
    double zLow = NORMAL.inverseCumulativeProbability(alpha);
    double low = NORMAL.cumulativeProbability(z0 + (z0 + zLow) / (1 - a * (z0 + zLow)));
    double high = NORMAL.cumulativeProbability(z0 + (z0 - zLow) / (1 - a * (z0 - zLow)));
    if (!Double.isFinite(low) || !Double.isFinite(high)) {
      return null;
    }
    return new double[] {low, high};
  }

  private static double quantile(double[] sorted, double p) {
    return QuantileMethod.LINEAR.quantile(sorted, Math.min(1, Math.max(0, p)));
  }
}
