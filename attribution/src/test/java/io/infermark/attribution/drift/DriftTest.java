package io.infermark.attribution.drift;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.attribution.drift.TailComparison.Shift;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.commons.statistics.distribution.LogNormalDistribution;
import org.junit.jupiter.api.Test;

/**
 * Drift on small vectors with known answers. Reference values come from numpy 2.4 and scipy 1.17:
 * {@code numpy.quantile} (linear) for the edges, {@code scipy.stats.entropy} for KL,
 * {@code scipy.spatial.distance.jensenshannon(...)**2} for JS, {@code scipy.stats.ks_2samp} for KS.
 */
class DriftTest {

  private static final double[] ONE_TO_TEN = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  /** Against ONE_TO_TEN's quintile edges [2.8, 4.6, 6.4, 8.2]: counts 3, 3, 1, 1, 4. */
  private static final double[] CURRENT = {1, 2, 3, 3, 4, 5, 9, 12, 15, 20, 0.5, 7};

  @Test
  void binsAreCutAtTheBaselinesNumpyQuantiles() {
    QuantileBins bins = QuantileBins.ofBaseline(ONE_TO_TEN, 5);

    assertThat(bins.edges()).containsExactly(new double[] {2.8, 4.6, 6.4, 8.2}, within(1e-12));
    assertThat(bins.counts(ONE_TO_TEN)).containsExactly(2, 2, 2, 2, 2);
    assertThat(bins.counts(CURRENT)).containsExactly(3, 3, 1, 1, 4);
    // Right-closed bins; values outside the baseline's range land in the end bins.
    assertThat(bins.binOf(2.8)).isZero();
    assertThat(bins.binOf(2.8000001)).isEqualTo(1);
    assertThat(bins.binOf(-1e9)).isZero();
    assertThat(bins.binOf(1e9)).isEqualTo(4);
    // Bins are unitless: edges are in whatever unit the baseline was.
    assertThat(bins.toString()).isEqualTo("QuantileBins[5 bins, edges 2.800 4.600 6.400 8.200]");
  }

  @Test
  void tiedQuantileEdgesAreMerged() {
    // numpy.quantile([1]*6 + [2, 3, 4, 5], [0.1 .. 0.9]) = [1, 1, 1, 1, 1, 1.4, 2.3, 3.2, 4.1]
    QuantileBins bins = QuantileBins.ofBaseline(new double[] {1, 1, 1, 1, 1, 1, 2, 3, 4, 5}, 10);

    assertThat(bins.edges()).containsExactly(new double[] {1, 1.4, 2.3, 3.2, 4.1}, within(1e-12));
    assertThat(bins.binCount()).isEqualTo(6);
    assertThat(bins.counts(new double[] {1, 1, 1, 1, 1, 1, 2, 3, 4, 5})).containsExactly(6, 0, 1, 1, 1, 1);
    assertThat(QuantileBins.ofBaseline(new double[] {7, 7, 7}, 10).binCount()).isEqualTo(2);
  }

  @Test
  void smoothedDivergencesMatchScipy() {
    // alpha 0.5: shares e = 2.5/12.5 each, a = (3.5, 3.5, 1.5, 1.5, 4.5)/14.5.
    BinnedDivergence d = BinnedDivergence.of(ONE_TO_TEN, CURRENT, 5, 0.5);

    assertThat(d.baselineShares()).containsOnly(0.2);
    assertThat(d.currentShares()).containsExactly(new double[] {3.5 / 14.5, 3.5 / 14.5, 1.5 / 14.5, 1.5 / 14.5,
        4.5 / 14.5}, within(1e-15));
    assertThat(d.psi()).isCloseTo(0.19134738581611174, within(1e-14));
    assertThat(d.klNats()).isCloseTo(0.09074335882035112, within(1e-14));
    assertThat(d.klReverseNats()).isCloseTo(0.10060402699576063, within(1e-14));
    assertThat(d.jsNats()).isCloseTo(0.02358524391537584, within(1e-14));
    assertThat(d.jsBits()).isCloseTo(0.03402631443486932, within(1e-14));
    // PSI is Jeffreys' divergence: the two KLs summed.
    assertThat(d.psi()).isCloseTo(d.klNats() + d.klReverseNats(), within(1e-15));
    assertThat(d.psiVerdict()).isEqualTo(PsiVerdict.MODERATE);
  }

  @Test
  void unsmoothedDivergencesMatchTheHandComputation() {
    // alpha 0: e = 0.2, a = (1/4, 1/4, 1/12, 1/12, 1/3). PSI by hand:
    // 2 (0.05 ln 1.25) + 2 (-7/60 ln(5/12)) + (2/15) ln(5/3) = 0.2947004770...
    BinnedDivergence d = BinnedDivergence.of(ONE_TO_TEN, CURRENT, 5, 0);

    double hand = 2 * 0.05 * Math.log(1.25) + 2 * (-7.0 / 60) * Math.log(5.0 / 12) + (2.0 / 15) * Math.log(5.0 / 3);
    assertThat(d.psi()).isCloseTo(hand, within(1e-15)).isCloseTo(0.2947004770161297, within(1e-14));
    assertThat(d.klNats()).isCloseTo(0.1359355273534517, within(1e-14));
    assertThat(d.klReverseNats()).isCloseTo(0.158764949662678, within(1e-14));
    assertThat(d.jsBits()).isCloseTo(0.05187207532339131, within(1e-14));
    assertThat(d.psiVerdict()).isEqualTo(PsiVerdict.SIGNIFICANT);
  }

  @Test
  void withoutSmoothingAnEmptyBinMakesKlInfiniteButNotJs() {
    // Nothing of the current sample in the baseline's lowest quintile.
    BinnedDivergence d = BinnedDivergence.of(ONE_TO_TEN, new double[] {5, 6, 7, 8, 9}, 5, 0);

    assertThat(d.currentCounts()).containsExactly(0, 0, 2, 2, 1);
    assertThat(d.psi()).isInfinite();
    assertThat(d.klReverseNats()).isInfinite();
    assertThat(d.klNats()).isFinite();
    assertThat(d.jsBits()).isBetween(0.0, 1.0);
    assertThat(BinnedDivergence.of(ONE_TO_TEN, new double[] {5, 6, 7, 8, 9}, 5, 0.5).psi()).isFinite();
  }

  @Test
  void identicalSamplesHaveZeroDivergence() {
    BinnedDivergence d = BinnedDivergence.of(ONE_TO_TEN, ONE_TO_TEN, 10, 0.5);
    assertThat(d.psi()).isZero();
    assertThat(d.klNats()).isZero();
    assertThat(d.jsBits()).isZero();
  }

  @Test
  void ksStatisticAndExactPValueOnSmallVectors() {
    // D by hand: at 10, F_baseline = 1 and F_current = 9/12, so D = 0.25 (every other gap is smaller).
    // scipy ks_2samp(method="exact") p = 0.7955589302338527 (it ignores ties, as the library's p does).
    KsResult ties = KsResult.of(ONE_TO_TEN, CURRENT, 0.05);
    assertThat(ties.statistic()).isEqualTo(0.25);
    assertThat(ties.pValue()).isCloseTo(0.7955589302338527, within(1e-12));
    assertThat(ties.exact()).isTrue();
    assertThat(ties.rejects()).isFalse();

    // Disjoint samples of 5: D = 1; exact p = 2 / C(10, 5) = 2/252 (only the two extreme orderings).
    KsResult disjoint = KsResult.of(new double[] {1, 2, 3, 4, 5}, new double[] {6, 7, 8, 9, 10}, 0.05);
    assertThat(disjoint.statistic()).isEqualTo(1.0);
    assertThat(disjoint.pValue()).isCloseTo(2.0 / 252, within(1e-15));
    assertThat(disjoint.rejects()).isTrue();

    // n = 6, m = 7 without ties: at 1.6, F_x = 1 and F_y = 4/7, D = 3/7; scipy exact p = 0.4335664335664336.
    KsResult small = KsResult.of(new double[] {0.1, 0.4, 0.7, 1.0, 1.3, 1.6},
        new double[] {0.5, 0.9, 1.2, 1.5, 1.8, 2.1, 2.4}, 0.05);
    assertThat(small.statistic()).isCloseTo(3.0 / 7, within(1e-15));
    assertThat(small.pValue()).isCloseTo(0.4335664335664336, within(1e-12));
    assertThat(small.significantTies()).isFalse();
  }

  @Test
  void ksTurnsAsymptoticFromTenThousandValues() {
    // Two uniform grids of 10,000 shifted by 1.5 % of the range: D = 150/10000. scipy
    // ks_2samp(method="asymp") p = kstwo.sf(0.015, 5000) = 0.20846142096185738.
    int n = 10_000;
    double[] b = new double[n];
    double[] c = new double[n];
    for (int i = 0; i < n; i++) {
      b[i] = (i + 0.5) / n * 100;
      c[i] = (i + 0.3) / n * 100 + 1.5;
    }

    KsResult r = KsResult.of(b, c, 0.05);

    assertThat(r.exact()).isFalse();
    assertThat(r.statistic()).isCloseTo(0.015, within(1e-12));
    assertThat(r.pValue()).isCloseTo(0.20846142096185738, within(1e-6));
  }

  @Test
  void tailComparisonFlagsADoubledP99ThatKsAndPsiMiss() {
    // Baseline: 5000 lognormal(ln 100, 0.5) quantiles at (i + 0.5)/n. Current: the same distribution at
    // (i + 0.3)/n (no ties) with its slowest 2 % doubled. Only 2 % of the mass moved, so KS's D is 0.0198
    // (scipy ks_2samp exact: p = 0.2808939724267857) and every decile keeps its 500 values (PSI ~ 8e-7),
    // but P99 went from 319.4 to 638.4 ms.
    int n = 5000;
    LogNormalDistribution ln = LogNormalDistribution.of(Math.log(100), 0.5);
    double[] baseline = new double[n];
    double[] current = new double[n];
    for (int i = 0; i < n; i++) {
      baseline[i] = ln.inverseCumulativeProbability((i + 0.5) / n);
      current[i] = ln.inverseCumulativeProbability((i + 0.3) / n) * (i >= 4900 ? 2 : 1);
    }

    DriftReport r = Drift.compare(baseline, current);

    assertThat(r.ks().statistic()).isCloseTo(0.0198, within(1e-12));
    assertThat(r.ks().pValue()).isCloseTo(0.2808939724267857, within(1e-9));
    assertThat(r.ks().rejects()).isFalse();
    assertThat(r.psi()).isCloseTo(7.984034592171701e-07, within(1e-12));
    assertThat(r.psiVerdict()).isEqualTo(PsiVerdict.STABLE);
    assertThat(r.p99Ratio()).hasValueCloseTo(1.9985150126895044, within(1e-6));
    assertThat(r.tail(0.9).orElseThrow().shift()).isEqualTo(Shift.NONE);
    assertThat(r.tail(0.99).orElseThrow().shift()).isEqualTo(Shift.SLOWER);
    assertThat(r.tail(0.999).orElseThrow().shift()).isEqualTo(Shift.SLOWER);
    assertThat(r.tailShifted()).isTrue();
    assertThat(r.drifted()).isTrue();
    assertThat(r.toString()).isEqualTo("DriftReport[5000 vs 5000 values: PSI 0.0000 stable, KL 0.0000 nats, "
        + "JS 0.0000 bits, KS D=0.0198 p=0.2809 (exact), P99 x2.00, tails P90 x1.00 none, P99 x2.00 slower, "
        + "P99.9 x1.99 slower]");
  }

  @Test
  void fasterTailAndTooFewValuesForAnInterval() {
    double[] base = new double[400];
    double[] fast = new double[400];
    for (int i = 0; i < 400; i++) {
      base[i] = 100 + i;
      fast[i] = i < 380 ? 100 + i : 200; // the top 5 % clipped to 200 ms
    }

    DriftReport r = Drift.compare(base, fast);

    assertThat(r.tail(0.99).orElseThrow().shift()).isEqualTo(Shift.FASTER);
    // P99.9 at 95 % needs more than 400 values: not formed, so unknown rather than "no shift".
    assertThat(r.tail(0.999).orElseThrow().shift()).isEqualTo(Shift.UNKNOWN);
  }

  @Test
  void recordsContributeOnlyMeasuredSuccessfulValues() {
    List<RequestRecord> base = new ArrayList<>();
    List<RequestRecord> cur = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      base.add(record(i, i * 1_000L, 10 + i));
      cur.add(record(i, i * 1_000L, 30 + i));
    }
    base.add(record(20, 0, 1e6).toBuilder().warmup(true).build());
    base.add(record(21, 0, 1e6).toBuilder().failure(Optional.of(Failure.of(ErrorCategory.HTTP_STATUS, "503")))
        .build());

    assertThat(Drift.valuesMillis(base, LatencyMetric.TTFT)).hasSize(20).contains(10.0, 29.0);
    DriftReport r = Drift.compare(base, cur, LatencyMetric.TTFT);
    // Current TTFTs 30..49 against 10..29: completely separated, D = 1.
    assertThat(r.baselineCount()).isEqualTo(20);
    assertThat(r.ks().statistic()).isEqualTo(1.0);
    assertThat(r.ks().rejects()).isTrue();
  }

  @Test
  void badInputIsRejectedWithTheReason() {
    assertThatThrownBy(() -> Drift.compare(new double[] {1}, new double[] {1, 2}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("baseline needs at least 2 values")
        .hasMessageContaining("had 1");
    assertThatThrownBy(() -> Drift.compare(new double[] {1, 2}, new double[] {1, Double.NaN}))
        .hasMessageContaining("NaN");
    assertThatThrownBy(() -> DriftOptions.defaults().bins(1)).hasMessageContaining("bins must be >= 2, was 1");
    assertThatThrownBy(() -> DriftOptions.defaults().pseudoCount(-0.5)).hasMessageContaining("-0.5");
    assertThatThrownBy(() -> DriftOptions.defaults().tailPercentiles(99)).hasMessageContaining("was 99");
    assertThatThrownBy(() -> PsiVerdict.of(Double.NaN)).hasMessageContaining("NaN");
  }

  @Test
  void psiVerdictFollowsTheConventionalCuts() {
    assertThat(PsiVerdict.of(0.0999)).isEqualTo(PsiVerdict.STABLE);
    assertThat(PsiVerdict.of(0.1)).isEqualTo(PsiVerdict.MODERATE);
    assertThat(PsiVerdict.of(0.25)).isEqualTo(PsiVerdict.MODERATE);
    assertThat(PsiVerdict.of(0.2501)).isEqualTo(PsiVerdict.SIGNIFICANT);
  }

  /** A successful record sent at {@code sendNanos} with the given TTFT. */
  static RequestRecord record(int index, long sendNanos, double ttftMillis) {
    long t = Math.round(ttftMillis * 1e6);
    return RequestRecord.builder().index(index).intendedNanos(sendNanos).sendNanos(sendNanos).httpStatus(200)
        .chunks(ChunkTimeline.builder().add(t, ChunkKind.CONTENT, 1).build()).endOffsetNanos(t).build();
  }
}
