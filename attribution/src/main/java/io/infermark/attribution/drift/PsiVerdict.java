package io.infermark.attribution.drift;

/**
 * The conventional reading of a population stability index: below 0.1 no significant change,
 * 0.1 to 0.25 a moderate shift worth a look, above 0.25 a significant shift. This rule of thumb comes
 * from credit-scorecard monitoring (Siddiqi, <i>Credit Risk Scorecards</i>, Wiley 2006) and is
 * discussed with its statistical basis by Yurdakul, <i>Statistical Properties of Population Stability
 * Index</i> (Western Michigan University, 2018). It is a convention, not a test: the PSI of two samples
 * from one distribution grows as samples shrink, so read it alongside {@link KsResult} and the tails.
 */
public enum PsiVerdict {
  /** PSI &lt; 0.1. */
  STABLE("stable"),
  /** 0.1 &le; PSI &le; 0.25. */
  MODERATE("moderate"),
  /** PSI &gt; 0.25. */
  SIGNIFICANT("significant");

  /** The lower bound of {@link #MODERATE}. */
  public static final double MODERATE_FROM = 0.1;
  /** The upper bound of {@link #MODERATE}; above it is {@link #SIGNIFICANT}. */
  public static final double SIGNIFICANT_ABOVE = 0.25;

  private final String label;

  PsiVerdict(String label) {
    this.label = label;
  }

  /**
   * The verdict of a PSI value.
   *
   * @throws IllegalArgumentException if {@code psi} is NaN or negative
   */
  public static PsiVerdict of(double psi) {
    if (!(psi >= 0)) {
      throw new IllegalArgumentException("PSI must be >= 0, was " + psi);
    }
    if (psi < MODERATE_FROM) {
      return STABLE;
    }
    return psi <= SIGNIFICANT_ABOVE ? MODERATE : SIGNIFICANT;
  }

  /** Lower-case name for reports. */
  public String label() {
    return label;
  }
}
