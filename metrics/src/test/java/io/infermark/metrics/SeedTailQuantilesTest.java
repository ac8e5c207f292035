package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Seed 002 §2.1's table of P99s ("建模偏差影响对比"): the Pareto row and the exponential row, from their own
 * parameters, by the quantile formula and by infermark's percentile of a seeded sample.
 */
class SeedTailQuantilesTest {

  private static final int N = 400_000;

  @Test
  void paretoP99IsTwoHundredFifteenPointFourNotTheSeeds128Point3() {
    // "帕累托分布生成示例（α=1.5，xm=1）... (np.random.pareto(a=1.5, size=10000) + 1) * 10": Pareto(1.5) scaled
    // by 10 ms. Quantile x_m (1 − p)^(−1/α): 10 × 0.01^(−2/3) = 215.443 ms; the seed prints 128.3.
    double exact = 10 * Math.pow(0.01, -1 / 1.5);
    assertThat(exact).isCloseTo(215.443469, within(1e-6));
    SplittableRandom r = new SplittableRandom(1);
    double[] v = new double[N];
    for (int i = 0; i < N; i++) {
      v[i] = 10 * Math.pow(1 - r.nextDouble(), -1 / 1.5);
    }
    assertThat(Distribution.of(v).p99().getAsDouble()).isCloseTo(exact, within(exact * 0.03));
  }

  @Test
  void exponentialP99IsFourHundredSixtyPointFiveNotTheSeeds76Point9() {
    // "若错误假设为指数分布（λ=0.01）则P99会被低估达40%以上", table row "误用指数分布 | 76.9 | −40.1%".
    // Exponential(λ = 0.01 per ms): P99 = −ln(0.01) / λ = 460.517 ms, above the Pareto's 215.4, not 40 % below it.
    double exact = -Math.log(0.01) / 0.01;
    assertThat(exact).isCloseTo(460.517019, within(1e-6));
    SplittableRandom r = new SplittableRandom(2);
    double[] v = new double[N];
    for (int i = 0; i < N; i++) {
      v[i] = -Math.log(1 - r.nextDouble()) / 0.01;
    }
    assertThat(Distribution.of(v).p99().getAsDouble()).isCloseTo(exact, within(exact * 0.02));
    // The seed's 76.9 ms is the exponential's P99 only for λ = ln(100) / 76.9 = 0.0599 per ms (mean 16.7 ms), and
    // its −40.1 % is 76.9 / 128.3 − 1, against its own (wrong) Pareto figure.
    assertThat(Math.log(100) / 76.9).isCloseTo(0.0599, within(1e-4));
    assertThat(76.9 / 128.3 - 1).isCloseTo(-0.401, within(5e-4));
  }
}
