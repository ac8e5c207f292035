package io.infermark.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArrivalShapesTest {

  private static final long SECOND = 1_000_000_000L;

  private static double[] gaps(long[] t) {
    double[] g = new double[t.length];
    long prev = 0;
    for (int i = 0; i < t.length; i++) {
      g[i] = t[i] - prev;
      prev = t[i];
    }
    return g;
  }

  private static double mean(double[] x) {
    return Arrays.stream(x).average().orElseThrow();
  }

  private static double cv(double[] x) {
    double m = mean(x);
    double ss = 0;
    for (double v : x) {
      ss += (v - m) * (v - m);
    }
    return Math.sqrt(ss / (x.length - 1)) / m;
  }

  /** The one-sample Kolmogorov–Smirnov statistic D of a sample against the exponential CDF with this mean. */
  private static double ksAgainstExponential(double[] sample, double mean) {
    double[] x = sample.clone();
    Arrays.sort(x);
    int n = x.length;
    double d = 0;
    for (int i = 0; i < n; i++) {
      double f = 1 - Math.exp(-x[i] / mean);
      d = Math.max(d, Math.max((i + 1.0) / n - f, f - (double) i / n));
    }
    return d;
  }

  @Test
  void poissonInterArrivalsPassAKsTestAgainstTheExponential() {
    int n = 20_000;
    double[] g = gaps(ArrivalProcess.poisson(250).schedule(n, Long.MAX_VALUE, 42));
    // Asymptotic critical value at the 1 % level: 1.628 / sqrt(n) = 0.01151 for n = 20,000.
    assertThat(ksAgainstExponential(g, 4_000_000.0)).isLessThan(1.628 / Math.sqrt(n));
  }

  @Test
  void ksStatisticRejectsGapsThatAreNotExponential() {
    // The same test on gamma gaps with CV 2 must fail, so the passing test above means something.
    int n = 20_000;
    double[] g = gaps(ArrivalProcess.gamma(250, 0.25).schedule(n, Long.MAX_VALUE, 42));
    assertThat(ksAgainstExponential(g, 4_000_000.0)).isGreaterThan(1.628 / Math.sqrt(n));
  }

  @Test
  void gammaGapsHaveTheRequestedMeanAndCoefficientOfVariation() {
    int n = 200_000;
    for (double burstiness : new double[] {0.25, 1, 4}) {
      double[] g = gaps(ArrivalProcess.gamma(100, burstiness).schedule(n, Long.MAX_VALUE, 7));
      // Mean gap 10 ms; CV = 1/sqrt(burstiness): 2, 1, 0.5.
      assertThat(mean(g)).as("mean at burstiness %s", burstiness).isCloseTo(1e7, within(1e7 * 0.015));
      assertThat(cv(g)).as("cv at burstiness %s", burstiness)
          .isCloseTo(1 / Math.sqrt(burstiness), within(0.03 / Math.sqrt(burstiness)));
    }
  }

  @Test
  void gammaIsRescaledSoTheCountOverTheDurationIsExact() {
    for (long seed = 0; seed < 5; seed++) {
      long[] t = ArrivalProcess.gamma(100, 0.3).schedule(Integer.MAX_VALUE, 10 * SECOND, seed);
      assertThat(t).hasSize(1000).isSorted();
      assertThat(t[t.length - 1]).isLessThan(10 * SECOND);
      assertThat(t[0]).isGreaterThanOrEqualTo(0);
    }
    // A count limit below round(rate × duration) is plain renewal, cut at the count.
    assertThat(ArrivalProcess.gamma(100, 0.3).schedule(50, 10 * SECOND, 1)).hasSize(50);
  }

  @Test
  void gammaWithInfiniteBurstinessIsConstant() {
    assertThat(ArrivalProcess.gamma(4, Double.POSITIVE_INFINITY).schedule(4, Long.MAX_VALUE, 9))
        .containsExactly(0L, 250_000_000L, 500_000_000L, 750_000_000L);
  }

  @Test
  void markovModulatedRateIsTheStationaryMeanAndCountsAreOverdispersed() {
    ArrivalProcess mmpp = ArrivalProcess.markovModulated(10, 190, Duration.ofSeconds(9), Duration.ofSeconds(1));
    // Stationary mean: (10·9 + 190·1) / 10 = 28 req/s.
    assertThat(mmpp.nominalRate()).hasValue(28.0);
    long[] t = mmpp.schedule(Integer.MAX_VALUE, 20_000 * SECOND, 3);
    assertThat(t.length / 20_000.0).isCloseTo(28.0, within(28 * 0.05));
    // Index of dispersion of one-second counts: 1 for Poisson, far above for modulated bursts.
    int[] counts = new int[20_000];
    for (long at : t) {
      counts[(int) (at / SECOND)]++;
    }
    double m = Arrays.stream(counts).average().orElseThrow();
    double var = Arrays.stream(counts).mapToDouble(c -> (c - m) * (c - m)).sum() / (counts.length - 1);
    assertThat(var / m).isGreaterThan(10);
    assertThat(t).isSorted();
  }

  @Test
  void burstsHavePoissonSizesWithTheRequestedMean() {
    long[] t = ArrivalProcess.bursts(5, 4, Duration.ZERO).schedule(Integer.MAX_VALUE, 2_000 * SECOND, 11);
    // 10,000 bursts expected, each 1 + Poisson(3): mean size 4, so 20 req/s.
    assertThat(t.length / 2_000.0).isCloseTo(20.0, within(0.6));
    int bursts = 1;
    for (int i = 1; i < t.length; i++) {
      if (t[i] != t[i - 1]) {
        bursts++;
      }
    }
    assertThat((double) t.length / bursts).isCloseTo(4.0, within(0.08));
    assertThat(ArrivalProcess.bursts(5, 4, Duration.ZERO).nominalRate()).hasValue(20.0);
  }

  @Test
  void burstMembersAreSpacedFromTheBurstStart() {
    long[] t = ArrivalProcess.bursts(0.001, 3, Duration.ofMillis(2)).schedule(3, Long.MAX_VALUE, 5);
    assertThat(t[1] - t[0]).isEqualTo(2_000_000L);
    assertThat(t[2] - t[1]).isEqualTo(2_000_000L);
  }

  @Test
  void linearRampPlacesTheIthArrivalWhereTheRampsIntegralReachesI() {
    // 0 → 10 req/s over 10 s: Λ(t) = t²/2, so arrival i is at sqrt(2i) s; then 10 req/s.
    long[] t = ArrivalProcess.linearRamp(0, 10, Duration.ofSeconds(10)).schedule(Integer.MAX_VALUE, 12 * SECOND, 0);
    assertThat(t[0]).isZero();
    assertThat(t[2]).isEqualTo(2 * SECOND);
    assertThat(t[8]).isEqualTo(4 * SECOND);
    assertThat(t[50]).isEqualTo(10 * SECOND);
    assertThat(t[51] - t[50]).isEqualTo(100_000_000L);
    assertThat(t).hasSize(70); // 50 during the ramp (Λ(10) = 50) and 20 in the next two seconds
  }

  @Test
  void exponentialRampFollowsTheGeometricRate() {
    // 1 → 8 req/s over 3 s: r(t) = 2^t, Λ(t) = (2^t − 1)/ln 2, so arrival i is at log2(1 + i·ln 2).
    long[] t = ArrivalProcess.exponentialRamp(1, 8, Duration.ofSeconds(3)).schedule(12, Long.MAX_VALUE, 0);
    for (int i = 0; i < 10; i++) {
      double expected = Math.log(1 + i * Math.log(2)) / Math.log(2);
      assertThat(t[i] / 1e9).isCloseTo(expected, within(1e-9));
    }
  }

  @Test
  void stairsHoldEachStepsRateAndStopAfterTheLast() {
    long[] t = ArrivalProcess.stairs(10, 10, 3, Duration.ofSeconds(1)).schedule(Integer.MAX_VALUE, Long.MAX_VALUE, 0);
    assertThat(t).hasSize(60); // 10 + 20 + 30
    assertThat(t[10]).isEqualTo(SECOND);
    assertThat(t[11] - t[10]).isEqualTo(50_000_000L);
    assertThat(t[30]).isEqualTo(2 * SECOND);
    assertThat(t[59]).isLessThan(3 * SECOND);
  }

  @Test
  void poissonRampHasTheRampsExpectedCount() {
    long[] t = ArrivalProcess.poissonLinearRamp(0, 100, Duration.ofSeconds(100))
        .schedule(Integer.MAX_VALUE, 100 * SECOND, 4);
    // Λ(100) = 5000 expected arrivals, standard deviation 71.
    assertThat(t.length).isBetween(4_700, 5_300);
    // In the first half the ramp has Λ(50) = 1250.
    assertThat(Arrays.stream(t).filter(x -> x < 50 * SECOND).count()).isBetween(1_100L, 1_400L);
  }

  @Test
  void sequenceRunsStagesBackToBack() {
    ArrivalProcess seq = ArrivalProcess.sequence(List.of(
        Stage.of(ArrivalProcess.constant(10), Duration.ofSeconds(1)),
        Stage.of(ArrivalProcess.constant(100), Duration.ofSeconds(1))));
    long[] t = seq.schedule(Integer.MAX_VALUE, Long.MAX_VALUE, 0);
    assertThat(t).hasSize(110).isSorted();
    assertThat(t[9]).isEqualTo(900_000_000L);
    assertThat(t[10]).isEqualTo(SECOND);
    assertThat(t[11]).isEqualTo(SECOND + 10_000_000L);
    assertThat(seq.nominalRate()).hasValue(55.0);
  }

  @Test
  void overlayMergesComponentsInTimeOrder() {
    ArrivalProcess o = ArrivalProcess.overlay(ArrivalProcess.constant(10), ArrivalProcess.poisson(50));
    long[] t = o.schedule(Integer.MAX_VALUE, 100 * SECOND, 2);
    assertThat(t).isSorted();
    long[] poissonPart = ArrivalProcess.poisson(50).schedule(Integer.MAX_VALUE, 100 * SECOND, Randoms.mix(2, 1));
    assertThat(t).hasSize(1000 + poissonPart.length);
    assertThat(o.nominalRate()).hasValue(60.0);
    assertThat(o.schedule(7, 100 * SECOND, 2)).containsExactly(Arrays.copyOf(t, 7));
  }

  @Test
  void everyProcessIsReproducibleFromItsSeed() {
    List<ArrivalProcess> all = List.of(ArrivalProcess.gamma(30, 0.5),
        ArrivalProcess.markovModulated(1, 50, Duration.ofSeconds(2), Duration.ofSeconds(1)),
        ArrivalProcess.bursts(3, 5, Duration.ofMillis(1)),
        ArrivalProcess.poissonLinearRamp(1, 30, Duration.ofSeconds(5)),
        ArrivalProcess.overlay(ArrivalProcess.poisson(5), ArrivalProcess.poisson(7)));
    for (ArrivalProcess p : all) {
      assertThat(p.schedule(500, 100 * SECOND, 13)).as(p.toString())
          .containsExactly(p.schedule(500, 100 * SECOND, 13)).isSorted();
    }
  }

  @Test
  void badConfigurationFailsFastNamingTheParameter() {
    assertThatThrownBy(() -> ArrivalProcess.gamma(0, 1)).hasMessageContaining("rate must be");
    assertThatThrownBy(() -> ArrivalProcess.gamma(10, 0)).hasMessageContaining("burstiness must be > 0");
    assertThatThrownBy(() -> ArrivalProcess.gamma(10, -1)).hasMessageContaining("burstiness");
    assertThatThrownBy(() -> ArrivalProcess.markovModulated(-1, 5, Duration.ofSeconds(1), Duration.ofSeconds(1)))
        .hasMessageContaining("calmRate");
    assertThatThrownBy(() -> ArrivalProcess.markovModulated(1, 5, Duration.ZERO, Duration.ofSeconds(1)))
        .hasMessageContaining("meanCalm must be > 0");
    assertThatThrownBy(() -> ArrivalProcess.bursts(1, 0.5, Duration.ZERO)).hasMessageContaining("meanBurstSize");
    assertThatThrownBy(() -> ArrivalProcess.linearRamp(0, 0, Duration.ofSeconds(1))).hasMessageContaining("0 to 0");
    assertThatThrownBy(() -> ArrivalProcess.linearRamp(-1, 5, Duration.ofSeconds(1))).hasMessageContaining("from");
    assertThatThrownBy(() -> ArrivalProcess.exponentialRamp(0, 5, Duration.ofSeconds(1))).hasMessageContaining("from");
    assertThatThrownBy(() -> ArrivalProcess.stairs(5, -10, 2, Duration.ofSeconds(1)))
        .hasMessageContaining("rate of step 1");
    assertThatThrownBy(() -> ArrivalProcess.sequence(List.of())).hasMessageContaining("at least one stage");
    assertThatThrownBy(() -> Stage.of(ArrivalProcess.constant(1), Duration.ofSeconds(-1)))
        .hasMessageContaining("stage duration must be > 0");
  }

  @Test
  void samplersMatchTheirMoments() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(1);
    double sum = 0;
    double sumSq = 0;
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      int k = Randoms.poisson(r, 2.5);
      sum += k;
      sumSq += (double) k * k;
    }
    double m = sum / n;
    assertThat(m).isCloseTo(2.5, within(0.03));
    assertThat(sumSq / n - m * m).isCloseTo(2.5, within(0.06));
    // Large means are split into pieces: the mean survives.
    double big = 0;
    for (int i = 0; i < 2_000; i++) {
      big += Randoms.poisson(r, 1_200);
    }
    assertThat(big / 2_000).isCloseTo(1_200, within(2.0));
  }
}
