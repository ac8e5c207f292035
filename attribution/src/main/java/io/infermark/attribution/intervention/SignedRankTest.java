package io.infermark.attribution.intervention;

import java.util.Arrays;
import org.apache.commons.statistics.inference.ContinuityCorrection;
import org.apache.commons.statistics.inference.PValueMethod;
import org.apache.commons.statistics.inference.WilcoxonSignedRankTest;

/**
 * The two-sided Wilcoxon signed-rank test of paired differences against zero, with zero differences
 * dropped (Wilcoxon's {@code zero_method="wilcox"}, scipy's default) and tied absolute differences given
 * their mid-ranks.
 *
 * <p>Up to {@value #EXACT_UP_TO} non-zero differences the p-value is exact: the permutation distribution
 * of {@code W+} given the ranks (each difference's sign equally likely to be + or −, conditional on the
 * ties), built by dynamic programming over doubled mid-ranks, which are integers. The two-sided p-value is
 * {@code min(1, 2·min(P(W+ ≤ w), P(W+ ≥ w)))}; without ties it equals the classical exact table. With
 * more differences the normal approximation with tie and continuity correction is used (from
 * commons-statistics-inference, given the non-zero differences).
 */
final class SignedRankTest {

  /** The most non-zero differences whose p-value is computed exactly. */
  static final int EXACT_UP_TO = 100;

  private SignedRankTest() {
  }

  /**
   * The test's outcome.
   *
   * @param statistic W+, the sum of the mid-ranks of |difference| over the positive differences
   * @param pValue the two-sided p-value; 1 when every difference is zero
   * @param nonZero the number of non-zero differences the ranks are taken over
   * @param exact whether the p-value is exact (at most {@value #EXACT_UP_TO} non-zero differences)
   */
  record Result(double statistic, double pValue, int nonZero, boolean exact) {
  }

  /**
   * Tests the differences against zero.
   *
   * @param differences finite values
   */
  static Result test(double[] differences) {
    double[] nonZero = Arrays.stream(differences).filter(v -> v != 0).toArray();
    int n = nonZero.length;
    if (n == 0) {
      return new Result(0, 1, 0, true);
    }
    int[] doubledRanks = doubledMidRanks(nonZero);
    long doubledW = 0;
    for (int i = 0; i < n; i++) {
      if (nonZero[i] > 0) {
        doubledW += doubledRanks[i];
      }
    }
    if (n > EXACT_UP_TO) {
      WilcoxonSignedRankTest.Result r = WilcoxonSignedRankTest.withDefaults().with(PValueMethod.ASYMPTOTIC)
          .with(ContinuityCorrection.ENABLED).test(nonZero);
      return new Result(doubledW / 2.0, r.getPValue(), n, false);
    }
    double[] probability = distribution(doubledRanks);
    double lower = 0;
    double upper = 0;
    for (int s = 0; s < probability.length; s++) {
      if (s <= doubledW) {
        lower += probability[s];
      }
      if (s >= doubledW) {
        upper += probability[s];
      }
    }
    return new Result(doubledW / 2.0, Math.min(1, 2 * Math.min(lower, upper)), n, true);
  }

  /**
   * Twice the mid-rank of each |value| among all of them (ranks start at 1): a tie group occupying ranks
   * {@code i … j} gets {@code i + j}, an integer.
   */
  static int[] doubledMidRanks(double[] values) {
    int n = values.length;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (x, y) -> Double.compare(Math.abs(values[x]), Math.abs(values[y])));
    int[] ranks = new int[n];
    int start = 0;
    while (start < n) {
      int end = start;
      while (end + 1 < n && Math.abs(values[order[end + 1]]) == Math.abs(values[order[start]])) {
        end++;
      }
      // Ranks start + 1 … end + 1 (one-based); doubled mid-rank = (start + 1) + (end + 1).
      for (int i = start; i <= end; i++) {
        ranks[order[i]] = start + end + 2;
      }
      start = end + 1;
    }
    return ranks;
  }

  /**
   * {@code P(2·W+ = s)} for {@code s = 0 … Σ ranks} when each doubled rank is counted with probability 1/2
   * independently: the null distribution given the ranks. Each step halves, so no count overflows.
   */
  static double[] distribution(int[] doubledRanks) {
    int total = 0;
    for (int r : doubledRanks) {
      total += r;
    }
    double[] p = new double[total + 1];
    p[0] = 1;
    int reach = 0;
    for (int r : doubledRanks) {
      reach += r;
      for (int s = reach; s >= 0; s--) {
        p[s] = 0.5 * p[s] + (s >= r ? 0.5 * p[s - r] : 0);
      }
    }
    return p;
  }
}
