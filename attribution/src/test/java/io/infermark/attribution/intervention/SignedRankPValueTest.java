package io.infermark.attribution.intervention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * The signed-rank p-values against exact enumeration: every reference value below was computed in Python
 * by enumerating all 2^n sign patterns of the non-zero differences with scipy's mid-ranks
 * ({@code scipy.stats.rankdata}), and agrees with {@code scipy.stats.wilcoxon(d,
 * method=PermutationMethod(n_resamples=inf))}.
 */
class SignedRankPValueTest {

  @Test
  void fiveEqualPositiveDifferencesHaveTheExactPValueNotTheNormalApproximation() {
    // All five of one sign is the most extreme of the 32 equally likely sign patterns: p = 2/32. The normal
    // approximation commons-statistics switches to on ties gave 0.0369.
    ChangeEstimate e = ChangeEstimate.of(new double[] {5, 5, 5, 5, 5}, 0.95, 1000, 0, IntervalMethod.PERCENTILE);

    assertThat(e.signedRankPValue()).isEqualTo(0.0625);
    assertThat(e.signedRankStatistic()).isEqualTo(15);
  }

  @Test
  void partlyTiedDifferencesOfOneSignHaveTheSmallestPValueOfTheirCount() {
    SignedRankTest.Result r = SignedRankTest.test(new double[] {2, 2, 2, 2, 3});

    assertThat(r.statistic()).isEqualTo(15);
    assertThat(r.pValue()).isEqualTo(0.0625);
    assertThat(r.exact()).isTrue();
  }

  @Test
  void twoEqualDifferencesHavePValueOneHalf() {
    // Sign patterns ++, +-, -+, --: W+ = 3, 1.5, 1.5, 0; P(W+ >= 3) = 1/4, two-sided 1/2 (the normal
    // approximation gave 0.346).
    assertThat(SignedRankTest.test(new double[] {4, 4}).pValue()).isEqualTo(0.5);
  }

  @Test
  void withoutTiesThePValuesAreTheClassicalExactOnes() {
    // W+ = 29 of n = 8: 19 of 256 patterns have W+ >= 29.
    assertThat(SignedRankTest.test(new double[] {1, -2, 3, 4, -5, 6, 7, 8}).pValue()).isEqualTo(38.0 / 256);
    assertThat(SignedRankTest.test(new double[] {1, 2, 3, 4, 5, 6}).pValue()).isEqualTo(2.0 / 64);
    assertThat(SignedRankTest.test(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}).pValue()).isEqualTo(2.0 / 1024);
    assertThat(SignedRankTest.test(new double[] {-1, -2, -3, -4, -5, -6}).pValue()).isEqualTo(2.0 / 64);
  }

  @Test
  void tiesAndAZeroMatchAnEnumerationOfEverySignPattern() {
    // Mid-ranks of the 11 non-zero |d|: 0.5 -> 1; 1.5, 1.5 -> 2.5; 2, 2, 2 -> 5; 3, 3 -> 7.5; 4, 4 -> 9.5; 6 -> 11.
    // W+ = 2.5 + 7.5 + 7.5 + 9.5 + 5 + 5 + 5 + 11 = 53; Python enumeration of 2^11 patterns: p = 0.076171875.
    SignedRankTest.Result r = SignedRankTest.test(new double[] {1.5, -1.5, 3, 3, 4, -0.5, 0, 2, 2, 2, -4, 6});

    assertThat(r.statistic()).isEqualTo(53);
    assertThat(r.nonZero()).isEqualTo(11);
    assertThat(r.pValue()).isCloseTo(0.076171875, within(1e-15));
  }

  @Test
  void zeroDifferencesAreDroppedBeforeRanking() {
    // Wilcoxon's zero_method="wilcox" (scipy's default): the six non-zero values take ranks 1-6, W+ = 17, and
    // 7 of the 64 sign patterns have W- <= 4, so p = 14/64 (scipy: 0.21875). Pratt's method, which ranks the
    // zeros first and then drops them, gives W+ = 32 and p = 0.30078125.
    SignedRankTest.Result r = SignedRankTest.test(new double[] {0, 0, 0, 1, 2, 3, -4, 5, 6});

    assertThat(r.nonZero()).isEqualTo(6);
    assertThat(r.statistic()).isEqualTo(17);
    assertThat(r.pValue()).isEqualTo(14.0 / 64);
  }

  @Test
  void allZeroDifferencesHavePValueOne() {
    SignedRankTest.Result r = SignedRankTest.test(new double[] {0, -0.0, 0});

    assertThat(r.pValue()).isEqualTo(1);
    assertThat(r.statistic()).isZero();
    assertThat(r.nonZero()).isZero();
  }

  @Test
  void nullDistributionIsSymmetricAndSumsToOne() {
    // Doubled mid-ranks of {1, 1, 2, 5}: ties at ranks 1-2 -> 3, 3; then 6, 8.
    int[] ranks = SignedRankTest.doubledMidRanks(new double[] {-1, 1, 2, 5});
    assertThat(ranks).containsExactly(3, 3, 6, 8);
    double[] p = SignedRankTest.distribution(ranks);
    assertThat(p).hasSize(21);
    double total = 0;
    for (int s = 0; s < p.length; s++) {
      total += p[s];
      assertThat(p[s]).isEqualTo(p[p.length - 1 - s]);
    }
    assertThat(total).isEqualTo(1.0);
    // Subsets of {3, 3, 6, 8} summing to 6: {3, 3} and {6}; 2 of 16.
    assertThat(p[6]).isEqualTo(2.0 / 16);
  }

  @Test
  void beyondOneHundredNonZeroDifferencesTheNormalApproximationIsUsed() {
    // numpy: np.round(default_rng(7).normal(0.3, 1, 130), 1) with the first five set to 0 (ten zeros in all, as
    // -0.0 and rounding to 0.0 add five). Python: z = (|W+ - n(n+1)/4| - 0.5) / sqrt(n(n+1)(2n+1)/24 -
    // sum(t^3 - t)/48) over the 120 non-zero values, p = erfc(z / sqrt 2) = 0.07978166540869953 (scipy.stats.wilcoxon
    // with correction=True, method="approx": 0.07978166540869946).
    double[] d = {
      0.0, 0.0, 0.0, 0.0, 0.0, -0.7, 0.4, 1.6, -0.2, -0.3, 0.8, 0.7, 0.4, -0.6, 0.3, 1.0, -1.0, -0.2, -1.6, -1.0,
      -1.5, 0.1, -1.0, 0.6, 0.5, 0.1, -2.2, -0.2, 0.3, 0.4, -1.2, -0.2, -0.7, -0.5, 1.4, -0.5, 0.3, 1.2, -0.3, 0.2,
      0.4, 0.4, -0.9, 0.4, 1.7, -1.2, 1.2, 0.4, -0.3, 2.3, 1.1, -0.9, 0.4, 0.9, 0.1, 1.0, 0.2, 1.0, 1.7, -0.4, 0.5,
      -0.2, 0.4, -0.9, -0.3, 0.1, 1.2, 1.4, -1.0, -0.5, 0.9, -1.7, -0.2, 0.2, 1.6, 1.0, -0.0, -0.1, 0.0, 1.8, -0.1,
      -0.0, 0.7, 0.2, 0.1, -0.8, 0.3, -0.1, 1.5, 1.0, 0.3, 1.0, -0.0, 1.4, 0.3, 0.9, -1.0, 0.6, -1.4, -1.7, -0.0,
      -0.6, 0.5, 2.5, -0.5, -0.3, 0.5, 0.8, 0.1, 0.1, 1.0, 0.8, -0.7, 0.2, 0.3, -0.8, 0.6, -0.6, 1.3, 0.5, 0.4, -0.3,
      0.2, -1.7, -0.8, 0.7, -1.8, 1.1, -1.4, 1.1
    };
    SignedRankTest.Result r = SignedRankTest.test(d);

    assertThat(r.nonZero()).isEqualTo(120);
    assertThat(r.exact()).isFalse();
    assertThat(r.statistic()).isEqualTo(4299);
    assertThat(r.pValue()).isCloseTo(0.07978166540869953, within(1e-12));
  }

  @Test
  void oneHundredNonZeroDifferencesAreStillExact() {
    // 1 ... 100 all positive: p = 2 / 2^100.
    double[] d = new double[100];
    for (int i = 0; i < d.length; i++) {
      d[i] = i + 1;
    }
    SignedRankTest.Result r = SignedRankTest.test(d);

    assertThat(r.exact()).isTrue();
    assertThat(r.pValue()).isEqualTo(Math.scalb(1.0, -99));
  }
}
