package io.infermark.metrics.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HillEstimateTest {

  @Test
  void meanLogExcessOverTheThresholdByHand() {
    // 90 values of 1.0 (the threshold X(n-k) with n = 100, k = 10), then e^0.1 ... e^1.0:
    // gamma = mean(0.1 .. 1.0) = 0.55, alpha = 1/0.55.
    double[] v = new double[100];
    Arrays.fill(v, 1.0);
    for (int i = 1; i <= 10; i++) {
      v[89 + i] = Math.exp(i / 10.0);
    }
    HillEstimate h = HillEstimate.of(v).orElseThrow();
    assertThat(h.k()).isEqualTo(10);
    assertThat(h.threshold()).isEqualTo(1.0);
    assertThat(h.gamma()).isCloseTo(0.55, within(1e-12));
    assertThat(h.alpha()).isCloseTo(1 / 0.55, within(1e-12));
    assertThat(h.infiniteVariance()).isTrue();
  }

  @Test
  void recoversTheIndexOfAParetoSample() {
    // Pareto(alpha = 1.5): X = U^(-1/alpha). With k = 316 the estimator's sd is about alpha/sqrt(k) = 0.08.
    SplittableRandom random = new SplittableRandom(42);
    double[] v = new double[100_000];
    for (int i = 0; i < v.length; i++) {
      v[i] = Math.pow(1 - random.nextDouble(), -1 / 1.5);
    }
    Arrays.sort(v);
    HillEstimate h = HillEstimate.of(v).orElseThrow();
    assertThat(h.k()).isEqualTo(316);
    assertThat(h.alpha()).isCloseTo(1.5, within(0.25));
  }

  @Test
  void needsTenUpperOrderStatisticsAndAPositiveThreshold() {
    assertThat(HillEstimate.of(new double[99])).isEmpty(); // k = 9
    assertThat(HillEstimate.of(new double[100])).isEmpty(); // threshold 0
    double[] ones = new double[100];
    Arrays.fill(ones, 1.0);
    assertThat(HillEstimate.of(ones).orElseThrow().alpha()).isInfinite();
  }
}
