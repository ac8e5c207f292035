package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.stats.QuantileMethod;
import java.util.Arrays;
import java.util.OptionalDouble;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DistributionTest {

  // Unsorted on purpose: Distribution sorts.
  private static final double[] V1 = {12.5, 3.25, 7.0, 99.125, 45.5, 0.75, 18.0, 27.25, 64.0, 5.5, 33.375};

  private static final double[] V2 = {20.1, 24.029, 17.039, 11.771, 15.29, 11.079, 20.824, 44.886, 14.949, 13.842,
      26.948, 24.882, 21.397, 11.493, 19.736, 30.483, 8.966, 15.263, 6.419, 9.265, 6.652, 17.443, 9.389, 23.636,
      22.066, 17.955, 4.437, 14.538, 19.509, 21.499, 8.02, 15.08, 11.166, 12.363, 37.96, 12.373, 19.697};

  /** Differences allowed against numpy: core's interpolation may differ from numpy's in the last ulps. */
  private static final double NUMPY_TOLERANCE = 1e-9;

  @Test
  void percentilesEqualNumpyLinear() {
    // Expected values from numpy 2.4.6: np.percentile(V1, [10, 50, 90, 95, 99, 99.9])
    Distribution d = Distribution.of(V1);
    assertThat(d.percentile(0.10).getAsDouble()).isCloseTo(3.25, within(NUMPY_TOLERANCE));
    assertThat(d.p50().getAsDouble()).isCloseTo(18.0, within(NUMPY_TOLERANCE));
    assertThat(d.p90().getAsDouble()).isCloseTo(64.0, within(NUMPY_TOLERANCE));
    assertThat(d.p95().getAsDouble()).isCloseTo(81.5625, within(NUMPY_TOLERANCE));
    assertThat(d.p99().getAsDouble()).isCloseTo(95.61250000000001, within(NUMPY_TOLERANCE));
    assertThat(d.p999().getAsDouble()).isCloseTo(98.77375000000006, within(NUMPY_TOLERANCE));
    assertThat(d.percentile(0.25).getAsDouble()).isCloseTo(6.25, within(NUMPY_TOLERANCE));
  }

  @Test
  void percentilesEqualNumpyLinearOnALognormalSample() {
    // Expected values from numpy 2.4.6: np.percentile(V2, [10, 25, 50, 90, 95, 99, 99.9])
    Distribution d = Distribution.of(V2);
    assertThat(d.percentile(0.10).getAsDouble()).isCloseTo(8.5876, within(NUMPY_TOLERANCE));
    assertThat(d.percentile(0.25).getAsDouble()).isCloseTo(11.493, within(NUMPY_TOLERANCE));
    assertThat(d.p50().getAsDouble()).isCloseTo(15.29, within(NUMPY_TOLERANCE));
    assertThat(d.p90().getAsDouble()).isCloseTo(25.708399999999997, within(NUMPY_TOLERANCE));
    assertThat(d.p95().getAsDouble()).isCloseTo(31.97839999999997, within(NUMPY_TOLERANCE));
    assertThat(d.p99().getAsDouble()).isCloseTo(42.39264000000001, within(NUMPY_TOLERANCE));
    assertThat(d.p999().getAsDouble()).isCloseTo(44.636664000000046, within(NUMPY_TOLERANCE));
  }

  @Test
  void meanAndPopulationStdEqualNumpy() {
    // Expected values from numpy 2.4.6: np.mean(V1), np.std(V1) (ddof=0); np.mean(V2), np.std(V2)
    Distribution d1 = Distribution.of(V1);
    assertThat(d1.mean().getAsDouble()).isCloseTo(28.75, within(1e-12));
    assertThat(d1.std().getAsDouble()).isCloseTo(29.118732255745925, within(1e-12));
    Distribution d2 = Distribution.of(V2);
    assertThat(d2.mean().getAsDouble()).isCloseTo(17.363351351351355, within(1e-12));
    assertThat(d2.std().getAsDouble()).isCloseTo(8.38173509166345, within(1e-12));
  }

  @Test
  void minMaxAndCountCoverEveryValue() {
    Distribution d = Distribution.of(V1);
    assertThat(d.count()).isEqualTo(11);
    assertThat(d.min()).hasValue(0.75);
    assertThat(d.max()).hasValue(99.125);
    assertThat(d.percentile(0)).hasValue(0.75);
    assertThat(d.percentile(1)).hasValue(99.125);
  }

  @Test
  void nearestRankReturnsObservedValuesAtRankCeilPN() {
    // Sorted V1: 0.75 3.25 5.5 7.0 12.5 18.0 27.25 33.375 45.5 64.0 99.125 (n = 11)
    Distribution d = Distribution.of(V1, QuantileMethod.NEAREST_RANK);
    assertThat(d.quantileMethod()).isEqualTo(QuantileMethod.NEAREST_RANK);
    assertThat(d.percentile(0)).hasValue(0.75);     // rank max(ceil(0), 1) = 1
    assertThat(d.percentile(0.25)).hasValue(5.5);   // ceil(2.75) = 3
    assertThat(d.p50()).hasValue(18.0);             // ceil(5.5) = 6
    assertThat(d.p90()).hasValue(64.0);             // ceil(9.9) = 10
    assertThat(d.p95()).hasValue(99.125);           // ceil(10.45) = 11
    assertThat(d.percentile(1)).hasValue(99.125);
  }

  @Test
  void singleValueIsEveryPercentileWithZeroStd() {
    Distribution d = Distribution.of(new double[] {42.0});
    assertThat(d.percentile(0)).hasValue(42.0);
    assertThat(d.p50()).hasValue(42.0);
    assertThat(d.p999()).hasValue(42.0);
    assertThat(d.percentile(1)).hasValue(42.0);
    assertThat(d.std()).hasValue(0.0);
    assertThat(d.mean()).hasValue(42.0);
  }

  @Test
  void duplicatesInterpolateLikeNumpy() {
    // Expected values from numpy 2.4.6: np.percentile([4, 4, 4, 9, 9], [50, 60, 75, 90]) = [4, 6, 9, 9]
    Distribution d = Distribution.of(new double[] {9, 4, 4, 9, 4});
    assertThat(d.p50()).hasValue(4.0);
    assertThat(d.percentile(0.6).getAsDouble()).isCloseTo(6.0, within(NUMPY_TOLERANCE));
    assertThat(d.percentile(0.75)).hasValue(9.0);
    assertThat(d.p90()).hasValue(9.0);
  }

  @Test
  void emptyDistributionIsExplicitAndHasNoValues() {
    Distribution d = Distribution.of(new double[0]);
    assertThat(d.isEmpty()).isTrue();
    assertThat(d.count()).isZero();
    assertThat(d.mean()).isEmpty();
    assertThat(d.std()).isEmpty();
    assertThat(d.min()).isEmpty();
    assertThat(d.max()).isEmpty();
    assertThat(d.p99()).isEmpty();
    assertThat(d.percentile(0.5)).isEqualTo(OptionalDouble.empty());
    assertThat(d.isTailUnreliable(0.5)).isTrue();
    assertThat(d).hasToString("Distribution[empty]");
    assertThat(Distribution.empty(QuantileMethod.NEAREST_RANK).quantileMethod())
        .isEqualTo(QuantileMethod.NEAREST_RANK);
  }

  @Test
  void p99IsUnreliableBelowOneHundredSamples() {
    assertThat(Distribution.of(ramp(99)).isTailUnreliable(0.99)).isTrue();
    assertThat(Distribution.of(ramp(100)).isTailUnreliable(0.99)).isFalse();
  }

  @Test
  void p999IsUnreliableBelowOneThousandSamples() {
    assertThat(Distribution.of(ramp(999)).isTailUnreliable(0.999)).isTrue();
    assertThat(Distribution.of(ramp(1000)).isTailUnreliable(0.999)).isFalse();
    assertThat(Distribution.of(ramp(999)).isTailUnreliable(0.99)).isFalse();
  }

  @Test
  void samplesNeededIsOneOverOneMinusP() {
    assertThat(Distribution.samplesNeeded(0)).isEqualTo(1);
    assertThat(Distribution.samplesNeeded(0.5)).isEqualTo(2);
    assertThat(Distribution.samplesNeeded(0.9)).isEqualTo(10);
    assertThat(Distribution.samplesNeeded(0.95)).isEqualTo(20);
    assertThat(Distribution.samplesNeeded(0.99)).isEqualTo(100);
    assertThat(Distribution.samplesNeeded(0.999)).isEqualTo(1000);
    assertThat(Distribution.samplesNeeded(1)).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void toStringMarksUnreliablePercentiles() {
    String s = Distribution.of(ramp(50)).toString();
    assertThat(s).startsWith("Distribution[n=50, mean 25.500 ms")
        .contains("p95 47.550 ms", "p99 49.510* ms", "p99.9 49.951* ms", "max 50.000 ms", "* too few samples")
        .doesNotContain("\n");
  }

  @Test
  void rejectsPercentilesGivenInPercent() {
    Distribution d = Distribution.of(V1);
    assertThatThrownBy(() -> d.percentile(99)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("p must be in [0, 1] (0.99 for P99), was 99.0");
    assertThatThrownBy(() -> d.isTailUnreliable(-0.1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rejectsNonFiniteValues() {
    assertThatThrownBy(() -> Distribution.of(new double[] {1, Double.NaN}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("value 1 is NaN");
  }

  @Test
  void copiesItsInputAndComparesByValue() {
    double[] values = V1.clone();
    Distribution d = Distribution.of(values);
    values[0] = 1000;
    assertThat(d.max()).hasValue(99.125);
    assertThat(Arrays.equals(values, V1)).isFalse();
    assertThat(d).isEqualTo(Distribution.of(V1)).hasSameHashCodeAs(Distribution.of(V1));
    assertThat(d).isNotEqualTo(Distribution.of(V1, QuantileMethod.NEAREST_RANK));
    assertThat(d.sortedValuesMillis()).startsWith(0.75, 3.25).endsWith(99.125);
  }

  @Test
  void standardAndOtherPercentilesEqualTheQuantileMethodOnTheSortedSample() {
    SplittableRandom random = new SplittableRandom(5);
    for (int trial = 0; trial < 300; trial++) {
      int n = 1 + random.nextInt(trial < 280 ? 300 : 20_000);
      double[] v = new double[n];
      for (int i = 0; i < n; i++) {
        v[i] = trial % 2 == 0 ? random.nextInt(20) : Math.exp(random.nextDouble() * 5);
      }
      double[] sorted = v.clone();
      Arrays.sort(sorted);
      for (QuantileMethod m : QuantileMethod.values()) {
        Distribution d = Distribution.of(v, m);
        for (Percentile p : Percentile.values()) {
          assertThat(d.percentile(p.p())).as("%s %s n=%d", m, p, n).hasValue(m.quantile(sorted, p.p()));
        }
        assertThat(d.min()).hasValue(sorted[0]);
        assertThat(d.max()).hasValue(sorted[n - 1]);
        double other = random.nextDouble();
        assertThat(d.percentile(other)).hasValue(m.quantile(sorted, other));
        assertThat(d.p99()).hasValue(m.quantile(sorted, 0.99));
      }
    }
  }

  @Test
  void percentilesAndIntervalsOfSamplesLongEnoughForTheHistogramSelectionEqualTheSortedSample() {
    SplittableRandom random = new SplittableRandom(6);
    int n = OrderStatistics.HISTOGRAM_THRESHOLD + 12_345;
    for (String shape : new String[] {"integer-nanos", "heavy-tailed", "with-zeros"}) {
      double[] v = new double[n];
      for (int i = 0; i < n; i++) {
        double u = random.nextDouble();
        v[i] = switch (shape) {
          case "integer-nanos" -> (18_000_000L + random.nextInt(4_000_000)) / 1e6;
          case "heavy-tailed" -> 20 * Math.pow(1 - u, -1 / 1.1);
          default -> random.nextInt(4) == 0 ? (random.nextBoolean() ? -0.0 : 0.0) : u * 50;
        };
      }
      double[] sorted = v.clone();
      Arrays.sort(sorted);
      for (int i = 0; i < n; i++) {
        sorted[i] += 0.0; // Distribution reports -0.0 as 0.0
      }
      for (QuantileMethod m : QuantileMethod.values()) {
        Distribution d = Distribution.of(v, m);
        for (Percentile p : Percentile.values()) {
          assertThat(d.percentile(p.p())).as("%s %s %s", shape, m, p).hasValue(m.quantile(sorted, p.p()));
        }
        PercentileInterval interval = d.percentileInterval(0.99, 0.95);
        assertThat(interval.lowerMillis()).hasValue(sorted[(int) interval.ranks().orElseThrow().lower() - 1]);
        assertThat(interval.upperMillis()).hasValue(sorted[(int) interval.ranks().orElseThrow().upper() - 1]);
        assertThat(d.sortedValuesMillis()).as("%s: selection only reordered", shape).isEqualTo(sorted);
      }
    }
  }

  /** 1, 2, ..., n. */
  private static double[] ramp(int n) {
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = i + 1;
    }
    return v;
  }
}
