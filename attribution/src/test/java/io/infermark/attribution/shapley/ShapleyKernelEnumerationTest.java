package io.infermark.attribution.shapley;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Kernel SHAP's exact enumeration of the extreme coalition sizes before sampling the inner ones. */
class ShapleyKernelEnumerationTest {

  private static final int N = 10;

  /**
   * Mean squared error per player over seeds 0–49 of the previous estimator (every coalition sampled,
   * nothing enumerated) on {@link #game()}, measured on commit 0d1a1f5 before this change.
   */
  private static final double OLD_MSE_200 = 0.0239147;
  private static final double OLD_MSE_320 = 0.0146899;
  private static final double OLD_MSE_1000 = 0.00465167;

  @Test
  void aBudgetOf200EnumeratesTheSingletonsAndTheirComplementsOnly() {
    // n = 10, 200 samples: sizes 1 and 9 (20 coalitions) get 200 · 0.39 = 79 ≥ 20 of a kernel-proportional
    // share; sizes 2 and 8 (90 coalitions) would get 180 · 0.36 = 65 < 90, so they are sampled.
    Set<Long> seen = new HashSet<>();
    Shapley.kernel(recording(game(), seen), 200, 3);

    for (int i = 0; i < N; i++) {
      assertThat(seen).contains(1L << i, ((1L << N) - 1) & ~(1L << i));
    }
    assertThat(seen.stream().filter(s -> Long.bitCount(s) == 2).count()).isLessThan(45);
  }

  @Test
  void enumeratingTheExtremeSizesCutsTheErrorAgainstExact() {
    double[] exact = Shapley.exact(game()).values();

    double mse200 = meanSquaredError(game(), exact, 200, 50);
    double mse320 = meanSquaredError(game(), exact, 320, 50);

    // Sizes 1 and 9 enumerated: about 0.53× the old error; sizes 1, 2, 8, 9: about 0.32×.
    assertThat(mse200).isLessThan(0.6 * OLD_MSE_200);
    assertThat(mse320).isLessThan(0.5 * OLD_MSE_320);
  }

  @Test
  void aBudgetJustShortOfEverythingEnumeratesAllButTheMiddleSize() {
    // 1000 samples: sizes 1–4 and 6–9 (770 coalitions) are enumerated, the 252 of size 5 cannot all be,
    // so the remaining 230 rows are 115 sampled pairs of size 5.
    Set<Long> seen = new HashSet<>();
    ShapleyValues one = Shapley.kernel(recording(game(), seen), 1000, 1);
    long[] perSize = new long[N + 1];
    for (long s : seen) {
      perSize[Long.bitCount(s)]++;
    }
    for (int s = 1; s < N; s++) {
      if (s != 5) {
        assertThat(perSize[s]).as("size %d", s).isEqualTo(Math.round(Shapley.binomial(N, s)));
      }
    }
    assertThat(perSize[5]).isBetween(100L, 230L);
    assertThat(one.evaluations()).isEqualTo(seen.size());
    assertThat(one.standardError(0)).isPositive();
    assertThat(one.efficiencyGap()).isCloseTo(0, within(1e-12));

    double[] exact = Shapley.exact(game()).values();
    double mse = meanSquaredError(game(), exact, 1000, 50);
    // Only the middle size's 4 % of the kernel mass is left to chance: about 1/70 of the old error.
    assertThat(mse).isLessThan(0.05 * OLD_MSE_1000);
  }

  @Test
  void reportedStandardErrorsStayCalibratedWhenSizesAreEnumerated() {
    // Enumerated rows are fixed, so only the sampled pairs enter the sandwich's meat.
    double[] exact = Shapley.exact(game()).values();
    for (int budget : new int[] {200, 1000}) {
      double squaredError = 0;
      double se = 0;
      int seeds = 200;
      for (int seed = 0; seed < seeds; seed++) {
        ShapleyValues v = Shapley.kernel(game(), budget, seed);
        for (int i = 0; i < N; i++) {
          squaredError += Math.pow(v.value(i) - exact[i], 2);
          se += v.standardError(i);
        }
      }
      double ratio = (se / (N * seeds)) / Math.sqrt(squaredError / (N * seeds));
      assertThat(ratio).as("budget %d", budget).isBetween(0.75, 1.3);
    }
  }

  private static double meanSquaredError(CoalitionGame game, double[] exact, int budget, int seeds) {
    double sum = 0;
    for (int seed = 0; seed < seeds; seed++) {
      ShapleyValues v = Shapley.kernel(game, budget, seed);
      for (int i = 0; i < N; i++) {
        sum += Math.pow(v.value(i) - exact[i], 2);
      }
    }
    return sum / (N * seeds);
  }

  private static CoalitionGame recording(CoalitionGame game, Set<Long> seen) {
    return CoalitionGame.of(game.players(), s -> {
      seen.add(s);
      return game.value(s);
    });
  }

  /**
   * Pairwise interactions and a size threshold ({@link ShapleySamplingTest#interactions}), plus a convex
   * term {@code (Σ w_i)^1.5} and a three-player bonus, so that no coalition size fits without residual.
   */
  private static CoalitionGame game() {
    SplittableRandom random = new SplittableRandom(4);
    double[] w = new double[N];
    for (int i = 0; i < N; i++) {
      w[i] = random.nextDouble(0, 2);
    }
    CoalitionGame base = ShapleySamplingTest.interactions(N, 9);
    return CoalitionGame.of(CoalitionGame.defaultNames(N), s -> {
      double sum = 0;
      for (int i = 0; i < N; i++) {
        if ((s & (1L << i)) != 0) {
          sum += w[i];
        }
      }
      double v = base.value(s) + Math.pow(sum, 1.5);
      return (s & 7) == 7 ? v + 3 : v;
    });
  }
}
