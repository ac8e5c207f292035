package io.infermark.attribution.intervention;

/** How a bootstrap confidence interval is read off the bootstrap distribution. */
public enum IntervalMethod {

  /**
   * The α/2 and 1 − α/2 quantiles (linear, numpy's default) of the bootstrap means. Simple; on a few
   * units it tends to be too narrow.
   */
  PERCENTILE,

  /**
   * Bias-corrected and accelerated (Efron and Tibshirani, <i>An Introduction to the Bootstrap</i>,
   * 14.3): the quantiles are shifted by the bias correction {@code z0 = Φ⁻¹(share of bootstrap means
   * below the estimate, ties counted half)} and the jackknife acceleration {@code a}, exactly as
   * {@code scipy.stats.bootstrap(method="BCa")} does. When {@code z0} is infinite (the estimate is
   * outside the bootstrap distribution) or {@code a} undefined (every unit equal), the percentile
   * interval is returned and reported as such.
   */
  BCA
}
