package io.infermark.attribution.drift;

import java.util.Locale;
import org.apache.commons.statistics.inference.KolmogorovSmirnovTest;

/**
 * The two-sample Kolmogorov–Smirnov test of a baseline against a current sample, two-sided, computed by
 * Apache Commons Statistics' {@link KolmogorovSmirnovTest} with its default {@code AUTO} p-value method:
 * exact (Viehmann 2021, Hodges 1958) when both samples have fewer than 10,000 values, otherwise
 * asymptotic: the two-sided one-sample KS distribution's survival function at D with the effective
 * sample size {@code nm/(n+m)}, as scipy's {@code ks_2samp(method="asymp")} computes it (our tests agree
 * with scipy to 1e-6). {@link #exact()} says which.
 *
 * <p>With ties between the samples the library takes the ordering of tied values that changes D
 * least; {@link #significantTies()} says whether another ordering would give a larger D (up to
 * {@link #upperStatistic()}).
 *
 * <p>KS measures the largest vertical gap between the two CDFs, so it is most sensitive in the middle
 * of the distribution and nearly blind to the tail: doubling the slowest 1 % moves D by at most 0.01.
 * That is why {@link DriftReport} adds a tail comparison.
 *
 * @param statistic D, the largest gap between the two empirical CDFs, in [0, 1]
 * @param pValue the probability of a D at least this large if both samples came from one distribution
 * @param exact true when the p-value is exact, false when asymptotic
 * @param significantTies true when ties could make D larger
 * @param upperStatistic the largest D any ordering of ties gives (equal to D without significant ties)
 * @param alpha the level at which {@link #rejects()} is decided
 */
public record KsResult(double statistic, double pValue, boolean exact, boolean significantTies,
    double upperStatistic, double alpha) {

  /** Largest sample size for which the library's AUTO method computes an exact p-value (exclusive). */
  static final int EXACT_BELOW = 10_000;

  /** Runs the test. Both samples need at least 2 values (the library's minimum). */
  static KsResult of(double[] baseline, double[] current, double alpha) {
    KolmogorovSmirnovTest.TwoResult r = KolmogorovSmirnovTest.withDefaults().test(baseline, current);
    boolean exact = Math.max(baseline.length, current.length) < EXACT_BELOW;
    return new KsResult(r.getStatistic(), r.getPValue(), exact, r.hasSignificantTies(), r.getUpperD(), alpha);
  }

  /** True when the p-value is below {@link #alpha()}: the samples differ somewhere. */
  public boolean rejects() {
    return pValue < alpha;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "KsResult[D=%.4f, p=%.4g (%s)%s, %s at alpha %s]", statistic, pValue,
        exact ? "exact" : "asymptotic", significantTies ? ", ties" : "", rejects() ? "rejects" : "does not reject",
        alpha);
  }
}
