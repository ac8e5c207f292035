package io.infermark.attribution.intervention;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * The estimated change of a statistic, B − A, from one difference per repetition of an intervention
 * experiment: the mean difference, a bootstrap confidence interval over repetitions, and the
 * two-sided Wilcoxon signed-rank test of the differences against zero.
 *
 * <p>Repetitions are the resampling unit because each holds the same mirror-ordered blocks (A B B A
 * for one factor), so a slow drift of the system under test cancels within a repetition and the
 * differences are independent of it. The signed-rank test drops zero differences (Wilcoxon's
 * {@code zero_method="wilcox"}, scipy's default) and gives tied ones their mid-ranks; its two-sided
 * p-value is exact for up to 100 non-zero differences, ties or not (the permutation distribution of
 * W+ given the ranks), and from the normal approximation with tie and continuity correction beyond.
 * With fewer than six non-zero differences it cannot fall below 0.05 (its smallest value is
 * {@code 2/2^n}, all differences of one sign), so read the interval first on small experiments.
 */
public final class ChangeEstimate {

  private final double estimate;
  private final double lower;
  private final double upper;
  private final double confidence;
  private final IntervalMethod intervalMethod;
  private final int resamples;
  private final double signedRankStatistic;
  private final double signedRankPValue;
  private final double[] differences;

  private ChangeEstimate(double estimate, double lower, double upper, double confidence, IntervalMethod intervalMethod,
      int resamples, double signedRankStatistic, double signedRankPValue, double[] differences) {
    this.estimate = estimate;
    this.lower = lower;
    this.upper = upper;
    this.confidence = confidence;
    this.intervalMethod = intervalMethod;
    this.resamples = resamples;
    this.signedRankStatistic = signedRankStatistic;
    this.signedRankPValue = signedRankPValue;
    this.differences = differences;
  }

  /**
   * Estimates the change from paired differences (B − A, one per repetition).
   *
   * @param confidence the interval's coverage, in (0, 1)
   * @param resamples bootstrap resamples, at least 100
   * @param seed the bootstrap's seed
   * @param method how the interval is read off the bootstrap distribution
   * @throws IllegalArgumentException if there are fewer than two differences, one is not finite, or a
   *     parameter is out of range
   */
  public static ChangeEstimate of(double[] differences, double confidence, int resamples, long seed,
      IntervalMethod method) {
    Objects.requireNonNull(method, "method");
    double[] d = differences.clone();
    MeanBootstrap.Interval ci = MeanBootstrap.interval(d, confidence, resamples, seed, method);
    SignedRankTest.Result signedRank = SignedRankTest.test(d);
    return new ChangeEstimate(MeanBootstrap.mean(d), ci.lower(), ci.upper(), confidence, ci.method(), resamples,
        signedRank.statistic(), signedRank.pValue(), d);
  }

  /** The mean of the differences: the estimated change B − A. */
  public double estimate() {
    return estimate;
  }

  /** The lower end of the bootstrap confidence interval. */
  public double lower() {
    return lower;
  }

  /** The upper end of the bootstrap confidence interval. */
  public double upper() {
    return upper;
  }

  /** The interval's nominal coverage, e.g. 0.95. */
  public double confidence() {
    return confidence;
  }

  /**
   * How the interval was read: the method asked for, or {@link IntervalMethod#PERCENTILE} when BCa was
   * asked for but undefined on these differences.
   */
  public IntervalMethod intervalMethod() {
    return intervalMethod;
  }

  /** The number of bootstrap resamples. */
  public int resamples() {
    return resamples;
  }

  /** True when the confidence interval lies entirely above or entirely below zero. */
  public boolean excludesZero() {
    return lower > 0 || upper < 0;
  }

  /**
   * The signed-rank statistic W+: the sum of the (mid-)ranks of |difference| over the positive differences,
   * zeros dropped before ranking.
   */
  public double signedRankStatistic() {
    return signedRankStatistic;
  }

  /**
   * The two-sided signed-rank p-value for "the differences are symmetric about zero": exact up to 100
   * non-zero differences (with ties, conditional on them), normal approximation beyond; 1 when every
   * difference is zero.
   */
  public double signedRankPValue() {
    return signedRankPValue;
  }

  /** The paired differences B − A, one per repetition, in run order; a copy. */
  public double[] differences() {
    return differences.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ChangeEstimate c && Arrays.equals(c.differences, differences)
        && Double.compare(c.lower, lower) == 0 && Double.compare(c.upper, upper) == 0
        && Double.compare(c.confidence, confidence) == 0 && c.intervalMethod == intervalMethod
        && c.resamples == resamples;
  }

  @Override
  public int hashCode() {
    return Objects.hash(Arrays.hashCode(differences), lower, upper, confidence, intervalMethod);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ChangeEstimate[%+.4g, %.0f%% CI [%.4g, %.4g] (%s, %d resamples), "
            + "signed-rank W+=%.1f p=%.4g, %d repetitions]", estimate, 100 * confidence, lower, upper,
        intervalMethod.name().toLowerCase(Locale.ROOT), resamples, signedRankStatistic, signedRankPValue,
        differences.length);
  }
}
