package io.infermark.metrics.stats;

import java.util.Locale;
import java.util.Optional;

/**
 * The Hill estimate of a sample's upper-tail index: how heavy its right tail is. For a tail that
 * decays like a power law, {@code P(X > x) ~ x^−α}, the estimator over the {@code k} largest values
 * is {@code γ = (1/k) Σ_{i=1..k} ln(X(n−i+1) / X(n−k))} and {@code α = 1/γ} (Hill, 1975). Smaller α
 * means a heavier tail: below 2 the variance is infinite and high percentiles are ruled by a handful
 * of extreme values.
 *
 * <p>The number of upper order statistics used by default is {@code k = ⌊√n⌋} (a common choice
 * balancing bias against variance), and an estimate needs at least {@value #MIN_K} of them, so
 * samples of fewer than 100 values have none.
 *
 * @param n the sample size
 * @param k the number of upper order statistics used
 * @param threshold the k+1-th largest value, {@code X(n−k)}, above which the tail is fitted
 * @param gamma the extreme-value index γ (mean log-excess over the threshold)
 */
public record HillEstimate(int n, int k, double threshold, double gamma) {

  /** The fewest upper order statistics an estimate is formed from. */
  public static final int MIN_K = 10;

  /** Validates. */
  public HillEstimate {
    if (k < 1 || k >= n) {
      throw new IllegalArgumentException("k must be in [1, n) with n = " + n + ", was " + k);
    }
    if (!(threshold > 0) || !(gamma >= 0)) {
      throw new IllegalArgumentException("threshold must be > 0 and gamma >= 0, were " + threshold + " and " + gamma);
    }
  }

  /** The default number of upper order statistics for a sample of n: {@code ⌊√n⌋}. */
  public static int defaultK(int n) {
    return (int) Math.floor(Math.sqrt(n));
  }

  /**
   * The estimate with {@link #defaultK(int) k = ⌊√n⌋}, or empty when k &lt; {@value #MIN_K} or the
   * threshold is not positive (the estimator divides by it).
   *
   * @param sortedAscending the sample in ascending order (not checked beyond the values read)
   */
  public static Optional<HillEstimate> of(double[] sortedAscending) {
    int k = defaultK(sortedAscending.length);
    return k < MIN_K ? Optional.empty() : of(sortedAscending, k);
  }

  /**
   * The estimate over the {@code k} largest values, or empty when k &lt; {@value #MIN_K}, k ≥ n or
   * the threshold {@code X(n−k)} is not positive.
   *
   * @param sortedAscending the sample in ascending order
   * @throws IllegalArgumentException if k &lt; 1
   */
  public static Optional<HillEstimate> of(double[] sortedAscending, int k) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
    int n = sortedAscending.length;
    if (k < MIN_K || k >= n) {
      return Optional.empty();
    }
    double threshold = sortedAscending[n - k - 1];
    if (!(threshold > 0)) {
      return Optional.empty();
    }
    double logThreshold = Math.log(threshold);
    double sum = 0;
    for (int i = n - k; i < n; i++) {
      sum += Math.log(sortedAscending[i]) - logThreshold;
    }
    return Optional.of(new HillEstimate(n, k, threshold, sum / k));
  }

  /** The tail index α = 1/γ; infinite when γ is 0 (no spread above the threshold). */
  public double alpha() {
    return gamma == 0 ? Double.POSITIVE_INFINITY : 1 / gamma;
  }

  /** True when α &lt; 2: the tail is so heavy its variance is infinite. */
  public boolean infiniteVariance() {
    return alpha() < 2;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "HillEstimate[alpha %.3f (gamma %.4f) from the top %d of %d above %.3f]",
        alpha(), gamma, k, n, threshold);
  }
}
