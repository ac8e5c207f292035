package io.infermark.attribution.drift;

import java.util.Arrays;
import java.util.Locale;

/**
 * How {@link Drift} compares two samples: the number of baseline-quantile bins and the smoothing of
 * their shares, the percentiles of the tail comparison and the confidence of their intervals, and the
 * significance level at which the KS test is said to reject. Immutable; start from {@link #defaults()}.
 *
 * <p>Defaults: 10 bins; pseudo-count 0.5 per bin (Jeffreys / Krichevsky–Trofimov smoothing, so an
 * empty bin costs a finite amount); tail percentiles P90, P99 and P99.9 with 95 % intervals; KS at
 * α = 0.05.
 */
public final class DriftOptions {

  private static final DriftOptions DEFAULTS = new DriftOptions(10, 0.5, new double[] {0.9, 0.99, 0.999}, 0.95, 0.05);

  private final int bins;
  private final double pseudoCount;
  private final double[] tailPercentiles;
  private final double confidence;
  private final double ksAlpha;

  private DriftOptions(int bins, double pseudoCount, double[] tailPercentiles, double confidence, double ksAlpha) {
    this.bins = bins;
    this.pseudoCount = pseudoCount;
    this.tailPercentiles = tailPercentiles;
    this.confidence = confidence;
    this.ksAlpha = ksAlpha;
  }

  /** 10 bins, pseudo-count 0.5, tails P90/P99/P99.9 at 95 %, KS α = 0.05. */
  public static DriftOptions defaults() {
    return DEFAULTS;
  }

  /**
   * These options with {@code n} bins: edges at the baseline's {@code k/n} quantiles, k = 1..n−1
   * (fewer when edges tie; see {@link QuantileBins}).
   *
   * @throws IllegalArgumentException if {@code n} is below 2
   */
  public DriftOptions bins(int n) {
    if (n < 2) {
      throw new IllegalArgumentException("bins must be >= 2, was " + n);
    }
    return new DriftOptions(n, pseudoCount, tailPercentiles, confidence, ksAlpha);
  }

  /**
   * These options with additive smoothing {@code alpha}: each bin's share is
   * {@code (count + alpha) / (n + alpha · bins)}, for both samples. 0 turns smoothing off, and a bin
   * empty in one sample but not the other then makes KL and PSI infinite.
   *
   * @throws IllegalArgumentException if {@code alpha} is negative or not finite
   */
  public DriftOptions pseudoCount(double alpha) {
    if (!(alpha >= 0) || Double.isInfinite(alpha)) {
      throw new IllegalArgumentException("pseudoCount must be finite and >= 0, was " + alpha);
    }
    return new DriftOptions(bins, alpha, tailPercentiles, confidence, ksAlpha);
  }

  /**
   * These options comparing the tails at the given percentiles.
   *
   * @param ps each in (0, 1): 0.99 for P99; at least one
   * @throws IllegalArgumentException if none is given or one is outside (0, 1)
   */
  public DriftOptions tailPercentiles(double... ps) {
    if (ps.length == 0) {
      throw new IllegalArgumentException("tailPercentiles needs at least one percentile");
    }
    for (double p : ps) {
      if (!(p > 0 && p < 1)) {
        throw new IllegalArgumentException("tail percentiles must be in (0, 1) (0.99 for P99), was " + p);
      }
    }
    return new DriftOptions(bins, pseudoCount, ps.clone(), confidence, ksAlpha);
  }

  /**
   * These options with the given confidence of each tail interval.
   *
   * @throws IllegalArgumentException if {@code c} is outside (0, 1)
   */
  public DriftOptions confidence(double c) {
    if (!(c > 0 && c < 1)) {
      throw new IllegalArgumentException("confidence must be in (0, 1) (0.95 for 95 %), was " + c);
    }
    return new DriftOptions(bins, pseudoCount, tailPercentiles, c, ksAlpha);
  }

  /**
   * These options with the KS significance level.
   *
   * @throws IllegalArgumentException if {@code alpha} is outside (0, 1)
   */
  public DriftOptions ksAlpha(double alpha) {
    if (!(alpha > 0 && alpha < 1)) {
      throw new IllegalArgumentException("ksAlpha must be in (0, 1) (0.05 for 5 %), was " + alpha);
    }
    return new DriftOptions(bins, pseudoCount, tailPercentiles, confidence, alpha);
  }

  /** The number of bins asked for (ties may merge some). */
  public int bins() {
    return bins;
  }

  /** The pseudo-count added to every bin of both samples. */
  public double pseudoCount() {
    return pseudoCount;
  }

  /** The tail percentiles, a copy. */
  public double[] tailPercentiles() {
    return tailPercentiles.clone();
  }

  /** The confidence of each tail interval. */
  public double confidence() {
    return confidence;
  }

  /** The KS significance level. */
  public double ksAlpha() {
    return ksAlpha;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "DriftOptions[%d bins, pseudo-count %s, tails %s at %s, KS alpha %s]", bins,
        pseudoCount, Arrays.toString(tailPercentiles), confidence, ksAlpha);
  }
}
