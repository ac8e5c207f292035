package io.infermark.attribution.intervention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Known answers from numpy replaying the documented resampling stream, and scipy's own BCa levels on
 * the same resampled means:
 *
 * <pre>
 * M = (1 &lt;&lt; 64) - 1
 * def mix(z):
 *     z = ((z ^ (z &gt;&gt; 30)) * 0xBF58476D1CE4E5B9) &amp; M
 *     z = ((z ^ (z &gt;&gt; 27)) * 0x94D049BB133111EB) &amp; M
 *     return z ^ (z &gt;&gt; 31)
 * def means(u, B, seed):               # u: the units, B: resamples
 *     s, out = seed &amp; M, []
 *     for b in range(B):
 *         idx = []
 *         for i in range(len(u)):
 *             s = (s + 0x9E3779B97F4A7C15) &amp; M
 *             idx.append((mix(s) &gt;&gt; 1) % len(u))
 *         out.append(math.fsum(np.array(u)[idx]) / len(u))
 *     return np.array(out)
 * np.percentile(means(u, 2000, 42), [2.5, 97.5])                       # percentile interval
 * a1, a2, _ = scipy.stats._resampling._bca_interval((np.array(u),), np.mean, -1, 0.025,
 *                                                  means(u, 2000, 42), None, np)
 * np.percentile(means(u, 2000, 42), [100 * a1, 100 * a2])              # BCa interval
 * </pre>
 */
class MeanBootstrapTest {

  private static final double[] UNITS = {12.5, 3.0, 7.25, 30.0, 9.5, 14.0, 5.5, 21.0};

  @Test
  void resamplesReplayTheDocumentedSplitMix64Stream() {
    assertThat(MeanBootstrap.resampledMeans(UNITS, 5, 42))
        .containsExactly(new double[] {8.28125, 17.34375, 11.75, 14.3125, 10.1875}, within(1e-12));
  }

  @Test
  void percentileIntervalMatchesNumpy() {
    MeanBootstrap.Interval ci = MeanBootstrap.interval(UNITS, 0.95, 2000, 42, IntervalMethod.PERCENTILE);

    assertThat(ci.lower()).isCloseTo(7.342187500000003, within(1e-12));
    assertThat(ci.upper()).isCloseTo(19.0625, within(1e-12));
    assertThat(ci.method()).isEqualTo(IntervalMethod.PERCENTILE);
  }

  @Test
  void bcaIntervalMatchesScipysBcaOnTheSameResamples() {
    // scipy.stats._resampling._bca_interval gives levels 0.0454777984105760 and 0.9889892625720462 here.
    MeanBootstrap.Interval ci = MeanBootstrap.interval(UNITS, 0.95, 2000, 42, IntervalMethod.BCA);

    assertThat(ci.lower()).isCloseTo(8.09375, within(1e-9));
    assertThat(ci.upper()).isCloseTo(19.874345992595025, within(1e-9));
    assertThat(ci.method()).isEqualTo(IntervalMethod.BCA);

    MeanBootstrap.Interval ninety = MeanBootstrap.interval(UNITS, 0.90, 1000, -7, IntervalMethod.BCA);
    assertThat(ninety.lower()).isCloseTo(8.841447068076087, within(1e-9));
    assertThat(ninety.upper()).isCloseTo(19.125, within(1e-9));
  }

  /** Their mean is exactly 1.25, but summed left to right they give 10.000000000000002. */
  private static final double[] TIED = {1.8, 1.6, 0.1, 0.1, 1.6, 1.5, 1.8, 1.5};

  @Test
  void theMeanIsTheCorrectlyRoundedSumOverNWhateverTheOrder() {
    double leftToRight = 0;
    for (double u : TIED) {
      leftToRight += u;
    }
    assertThat(leftToRight / TIED.length).isEqualTo(1.2500000000000002); // the naive sum's rounding
    assertThat(MeanBootstrap.mean(TIED)).isEqualTo(1.25);
    assertThat(MeanBootstrap.mean(new double[] {1.5, 1.8, 0.1, 1.6, 1.8, 0.1, 1.5, 1.6})).isEqualTo(1.25);
    assertThat(MeanBootstrap.mean(new double[] {1e308, 1e308, -1e308, -1e308})).isZero(); // no overflow
  }

  @Test
  void bcaCountsResamplesTiedWithTheEstimateAsTiesAsScipyDoes() {
    // The resamples' means are the correctly rounded sum over n, as the estimate is, so the 89 of 2000
    // resamples with the data's own sum tie with the estimate (mid-rank, scipy's _percentile_of_score).
    // Before, the estimate summed left to right was 1.2500000000000002 and those ties counted as below:
    // [0.6710, 1.6375] instead of scipy's [0.6426, 1.625]. scipy: np.mean(u) = 1.25, resamples
    // math.fsum(u[idx]) / n, levels 0.008707663349005659 and 0.948861749046409.
    double[] means = MeanBootstrap.resampledMeans(TIED, 2000, 42);
    assertThat(java.util.Arrays.stream(means).filter(m -> m == 1.25).count()).isEqualTo(89);

    MeanBootstrap.Interval ci = MeanBootstrap.interval(TIED, 0.95, 2000, 42, IntervalMethod.BCA);
    assertThat(ci.lower()).isCloseTo(0.6425827379332789, within(1e-9));
    assertThat(ci.upper()).isCloseTo(1.625, within(1e-9));

    MeanBootstrap.Interval ninety = MeanBootstrap.interval(TIED, 0.90, 1000, -7, IntervalMethod.BCA);
    assertThat(ninety.lower()).isCloseTo(0.8260699453623763, within(1e-9));
    assertThat(ninety.upper()).isCloseTo(1.6125, within(1e-9));
    assertThat(ChangeEstimate.of(TIED, 0.95, 2000, 42, IntervalMethod.BCA).estimate()).isEqualTo(1.25);
  }

  @Test
  void identicalUnitsGiveAPointIntervalAndFallBackFromBca() {
    MeanBootstrap.Interval ci = MeanBootstrap.interval(new double[] {4, 4, 4}, 0.95, 500, 1, IntervalMethod.BCA);

    assertThat(ci.lower()).isEqualTo(4.0);
    assertThat(ci.upper()).isEqualTo(4.0);
    assertThat(ci.method()).isEqualTo(IntervalMethod.PERCENTILE);
  }

  @Test
  void intervalsCoverTheTrueMeanAboutAsOftenAsTheyClaim() {
    // 400 samples of 12 normal units (mean 5, sd 2): a 90% interval should cover 5 in roughly 85-90%
    // of them (bootstrap intervals run a little short on small samples); 3.5 binomial sd around that.
    SplittableRandom random = new SplittableRandom(11);
    int trials = 400;
    int coveredPercentile = 0;
    int coveredBca = 0;
    for (int t = 0; t < trials; t++) {
      double[] units = new double[12];
      for (int i = 0; i < units.length; i++) {
        units[i] = 5 + 2 * gaussian(random);
      }
      MeanBootstrap.Interval p = MeanBootstrap.interval(units, 0.9, 1000, t, IntervalMethod.PERCENTILE);
      MeanBootstrap.Interval b = MeanBootstrap.interval(units, 0.9, 1000, t, IntervalMethod.BCA);
      coveredPercentile += p.lower() <= 5 && 5 <= p.upper() ? 1 : 0;
      coveredBca += b.lower() <= 5 && 5 <= b.upper() ? 1 : 0;
    }
    assertThat(coveredPercentile / (double) trials).isBetween(0.81, 0.95);
    assertThat(coveredBca / (double) trials).isBetween(0.81, 0.95);
  }

  private static double gaussian(SplittableRandom random) {
    // Box-Muller: SplittableRandom has no nextGaussian on Java 17.
    return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
  }

  @Test
  void badInputIsRejectedWithTheParameterNamed() {
    assertThatThrownBy(() -> MeanBootstrap.interval(new double[] {1}, 0.95, 1000, 0, IntervalMethod.BCA))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 2 units, was 1");
    assertThatThrownBy(() -> MeanBootstrap.interval(UNITS, 1.0, 1000, 0, IntervalMethod.BCA))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confidence must be in (0, 1), was 1.0");
    assertThatThrownBy(() -> MeanBootstrap.interval(UNITS, 0.95, 10, 0, IntervalMethod.BCA))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resamples must be at least 100, was 10");
    assertThatThrownBy(() -> MeanBootstrap.interval(new double[] {1, Double.NaN}, 0.95, 1000, 0,
        IntervalMethod.BCA)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be finite");
  }
}
