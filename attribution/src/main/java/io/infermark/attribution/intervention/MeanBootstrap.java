package io.infermark.attribution.intervention;

import io.infermark.core.stats.QuantileMethod;
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
 * numpy to check the interval.
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

  /** The means of {@code resamples} resamples, in draw order. */
  static double[] resampledMeans(double[] units, int resamples, long seed) {
    int n = units.length;
    double[] means = new double[resamples];
    long state = seed;
    for (int b = 0; b < resamples; b++) {
      double sum = 0;
      for (int i = 0; i < n; i++) {
        state += 0x9E3779B97F4A7C15L;
        int index = (int) ((mix(state) >>> 1) % n);
        sum += units[index];
      }
      means[b] = sum / n;
    }
    return means;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** The BCa quantile levels, or null when they are undefined. */
  private static double[] bcaLevels(double[] units, double[] sortedMeans, double alpha) {
    int n = units.length;
    double sum = 0;
    for (double u : units) {
      sum += u;
    }
    double estimate = sum / n;
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
    // Jackknife: the mean without unit i, and the acceleration from their skewness.
    double[] jack = new double[n];
    double jackMean = 0;
    for (int i = 0; i < n; i++) {
      jack[i] = (sum - units[i]) / (n - 1);
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
