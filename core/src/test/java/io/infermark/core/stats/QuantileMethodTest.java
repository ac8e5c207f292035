package io.infermark.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class QuantileMethodTest {

  /**
   * LINEAR computes {@code a + frac·(b − a)} at {@code p·(n−1)}; numpy computes the index as
   * {@code n·p + (1 − p) − 1} and interpolates from the upper neighbour when frac ≥ 0.5, so the two
   * agree to within a few ulps, not always bit for bit.
   */
  private static final double NUMPY_TOLERANCE = 1e-9;

  private static final double[] V1 = sorted(12.5, 3.25, 7.0, 99.125, 45.5, 0.75, 18.0, 27.25, 64.0, 5.5, 33.375);

  @Test
  void linearEqualsNumpyPercentile() {
    // Expected values from numpy 2.4.6:
    // np.percentile(V1, [0, 10, 25, 50, 90, 95, 99, 99.9, 100])
    double[] q = {0, 0.10, 0.25, 0.5, 0.9, 0.95, 0.99, 0.999, 1};
    double[] numpy = {0.75, 3.25, 6.25, 18.0, 64.0, 81.5625, 95.61250000000001, 98.77375000000006, 99.125};
    for (int i = 0; i < q.length; i++) {
      assertThat(QuantileMethod.LINEAR.quantile(V1, q[i])).as("p=%s", q[i])
          .isCloseTo(numpy[i], within(NUMPY_TOLERANCE));
    }
  }

  @Test
  void linearEqualsNumpyOnAnEvenSizedSample() {
    // Expected values from numpy 2.4.6:
    // np.percentile([1.5, 2.5, 4.0, 8.0, 16.0, 32.0], [50, 90, 99]) = [6.0, 24.0, 31.2]
    double[] v = {1.5, 2.5, 4.0, 8.0, 16.0, 32.0};
    assertThat(QuantileMethod.LINEAR.quantile(v, 0.5)).isCloseTo(6.0, within(NUMPY_TOLERANCE));
    assertThat(QuantileMethod.LINEAR.quantile(v, 0.9)).isCloseTo(24.0, within(NUMPY_TOLERANCE));
    assertThat(QuantileMethod.LINEAR.quantile(v, 0.99)).isCloseTo(31.2, within(NUMPY_TOLERANCE));
  }

  @Test
  void nearestRankIsTheValueAtRankCeilPN() {
    // The textbook example: 15 20 35 40 50.
    double[] v = {15, 20, 35, 40, 50};
    assertThat(QuantileMethod.NEAREST_RANK.quantile(v, 0.05)).isEqualTo(15); // ceil(0.25) = 1
    assertThat(QuantileMethod.NEAREST_RANK.quantile(v, 0.30)).isEqualTo(20); // ceil(1.5) = 2
    assertThat(QuantileMethod.NEAREST_RANK.quantile(v, 0.40)).isEqualTo(20); // ceil(2.0) = 2
    assertThat(QuantileMethod.NEAREST_RANK.quantile(v, 0.50)).isEqualTo(35); // ceil(2.5) = 3
    assertThat(QuantileMethod.NEAREST_RANK.quantile(v, 1.00)).isEqualTo(50);
  }

  @Test
  void nearestRankOfOneHundredValuesIsTheValueWithThatRank() {
    double[] v = ramp(100);
    assertThat(QuantileMethod.NEAREST_RANK.quantile(v, 0.5)).isEqualTo(50);
    assertThat(QuantileMethod.NEAREST_RANK.quantile(v, 0.9)).isEqualTo(90);
    assertThat(QuantileMethod.NEAREST_RANK.quantile(v, 0.95)).isEqualTo(95);
    assertThat(QuantileMethod.NEAREST_RANK.quantile(v, 0.99)).isEqualTo(99);
    assertThat(QuantileMethod.NEAREST_RANK.quantile(ramp(1000), 0.999)).isEqualTo(999);
  }

  @Test
  void nearestRankIsNotPushedUpByFloatingPointError() {
    assertThat(QuantileMethod.NEAREST_RANK.quantile(ramp(100), 0.14)).isEqualTo(14);
    assertThat(QuantileMethod.NEAREST_RANK.quantile(ramp(100), 0.07)).isEqualTo(7);
  }

  @Test
  void pZeroIsTheMinimumAndPOneTheMaximumForBothMethods() {
    for (QuantileMethod m : QuantileMethod.values()) {
      assertThat(m.quantile(V1, 0)).as(m.name()).isEqualTo(0.75);
      assertThat(m.quantile(V1, 1)).as(m.name()).isEqualTo(99.125);
    }
  }

  @Test
  void aSingleValueIsEveryQuantile() {
    double[] v = {42};
    for (QuantileMethod m : QuantileMethod.values()) {
      for (double p : new double[] {0, 0.5, 0.99, 0.999, 1}) {
        assertThat(m.quantile(v, p)).as("%s p=%s", m, p).isEqualTo(42);
      }
    }
  }

  @Test
  void duplicatesInterpolateOnlyBetweenDistinctNeighbours() {
    // Expected values from numpy 2.4.6: np.percentile([4, 4, 4, 9, 9], [50, 60, 75, 90]) = [4, 6, 9, 9]
    double[] v = {4, 4, 4, 9, 9};
    assertThat(QuantileMethod.LINEAR.quantile(v, 0.5)).isEqualTo(4);
    assertThat(QuantileMethod.LINEAR.quantile(v, 0.6)).isCloseTo(6, within(NUMPY_TOLERANCE));
    assertThat(QuantileMethod.LINEAR.quantile(v, 0.75)).isEqualTo(9);
    assertThat(QuantileMethod.LINEAR.quantile(v, 0.9)).isEqualTo(9);
    assertThat(QuantileMethod.NEAREST_RANK.quantile(v, 0.6)).isEqualTo(4); // ceil(3.0) = 3
    assertThat(QuantileMethod.NEAREST_RANK.quantile(v, 0.61)).isEqualTo(9); // ceil(3.05) = 4
  }

  @Test
  void rejectsAnEmptySample() {
    assertThatThrownBy(() -> QuantileMethod.LINEAR.quantile(new double[0], 0.5))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty sample");
  }

  @Test
  void rejectsQuantilesOutsideZeroToOne() {
    assertThatThrownBy(() -> QuantileMethod.LINEAR.quantile(V1, 99))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[0, 1]");
    assertThatThrownBy(() -> QuantileMethod.NEAREST_RANK.quantile(V1, -0.01))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> QuantileMethod.LINEAR.quantile(V1, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static double[] sorted(double... v) {
    double[] copy = v.clone();
    Arrays.sort(copy);
    return copy;
  }

  private static double[] ramp(int n) {
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = i + 1;
    }
    return v;
  }
}
