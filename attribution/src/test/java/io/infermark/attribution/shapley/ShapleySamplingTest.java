package io.infermark.attribution.shapley;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ShapleySamplingTest {

  /** Player 0 holds a left glove, players 1 and 2 right gloves: 2/3, 1/6, 1/6. */
  private static final CoalitionGame GLOVE = CoalitionGame.of(List.of("left", "right1", "right2"),
      s -> (s & 1) != 0 && (s & 6) != 0 ? 1 : 0);

  /** Weighted majority [6; 4, 3, 2, 1]: 5/12, 1/4, 1/4, 1/12 (by enumeration of the 24 orderings). */
  private static final CoalitionGame MAJORITY = weightedMajority(6, 4, 3, 2, 1);

  /** Runway costs 1, 3, 6: 1/3, 4/3, 13/3. */
  private static final CoalitionGame AIRPORT = CoalitionGame.of(List.of("small", "medium", "large"), s -> {
    double[] cost = {1, 3, 6};
    double max = 0;
    for (int i = 0; i < 3; i++) {
      if ((s & (1L << i)) != 0) {
        max = Math.max(max, cost[i]);
      }
    }
    return max;
  });

  @Test
  void kernelWithEnoughSamplesEnumeratesAndEqualsTheTextbookValues() {
    // 2^3 - 2 = 6 and 2^4 - 2 = 14 samples: every proper coalition, so the regression is exact.
    assertThat(Shapley.kernel(GLOVE, 6, 1).values())
        .containsExactly(new double[] {2.0 / 3, 1.0 / 6, 1.0 / 6}, within(1e-12));
    assertThat(Shapley.kernel(AIRPORT, 6, 1).values())
        .containsExactly(new double[] {1.0 / 3, 4.0 / 3, 13.0 / 3}, within(1e-12));
    ShapleyValues majority = Shapley.kernel(MAJORITY, 14, 1);
    assertThat(majority.values()).containsExactly(new double[] {5.0 / 12, 0.25, 0.25, 1.0 / 12}, within(1e-12));
    assertThat(majority.method()).isEqualTo("kernel");
    assertThat(majority.evaluations()).isEqualTo(16);
    assertThat(majority.standardError(0)).isZero();
  }

  @Test
  void permutationSamplingOfSmallGamesConvergesToTheTextbookValues() {
    ShapleyValues glove = Shapley.permutation(GLOVE, 2000, 7);
    ShapleyValues majority = Shapley.permutation(MAJORITY, 2000, 7);

    double[] gloveExact = {2.0 / 3, 1.0 / 6, 1.0 / 6};
    double[] majorityExact = {5.0 / 12, 0.25, 0.25, 1.0 / 12};
    for (int i = 0; i < 3; i++) {
      assertThat(Math.abs(glove.value(i) - gloveExact[i])).isLessThanOrEqualTo(4 * glove.standardError(i) + 1e-12);
      assertThat(glove.standardError(i)).isLessThan(0.02);
    }
    for (int i = 0; i < 4; i++) {
      assertThat(Math.abs(majority.value(i) - majorityExact[i]))
          .isLessThanOrEqualTo(4 * majority.standardError(i) + 1e-12);
    }
    assertThat(majority.efficiencyGap()).isCloseTo(0, within(1e-12));
    assertThat(majority.evaluations()).isEqualTo(2 + 2000 * 3);
  }

  @Test
  void permutationContributionsTelescopeSoEfficiencyIsExact() {
    // A non-additive 10-player game: a single pair of orderings already sums to v(N) − v(∅) exactly.
    CoalitionGame game = interactions(10, 3);
    for (int permutations : new int[] {4, 6, 40}) {
      ShapleyValues phi = Shapley.permutation(game, permutations, permutations);
      assertThat(phi.efficiencyGap()).isCloseTo(0, within(1e-12));
      assertThat(phi.sum()).isCloseTo(game.value(game.fullCoalition()) - game.value(0), within(1e-12));
    }
  }

  @Test
  void linearModelShapEqualsWeightTimesDeviationFromBackgroundMean() {
    // f(x) = 0.5 + w·x explained at x against a background set: the interventional game
    // v(S) = mean over background rows b of f(x_S, b_rest). Its Shapley values are w_i (x_i − E[b_i]).
    double[] w = {2, -1, 0.5, 3, 0, -4};
    double[] x = {1, 2, 3, 4, 5, 6};
    double[][] background = new double[50][6];
    SplittableRandom random = new SplittableRandom(11);
    double[] mean = new double[6];
    for (double[] row : background) {
      for (int i = 0; i < 6; i++) {
        row[i] = random.nextDouble(-3, 8);
        mean[i] += row[i] / background.length;
      }
    }
    CoalitionGame game = CoalitionGame.of(CoalitionGame.defaultNames(6), s -> {
      double sum = 0;
      double[] z = new double[6];
      for (double[] b : background) {
        for (int i = 0; i < 6; i++) {
          z[i] = (s & (1L << i)) != 0 ? x[i] : b[i];
        }
        double f = 0.5;
        for (int i = 0; i < 6; i++) {
          f += w[i] * z[i];
        }
        sum += f;
      }
      return sum / background.length;
    });
    double[] expected = new double[6];
    for (int i = 0; i < 6; i++) {
      expected[i] = w[i] * (x[i] - mean[i]);
    }

    assertThat(Shapley.exact(game).values()).containsExactly(expected, within(1e-9));
    assertThat(Shapley.kernel(game, 62, 1).values()).containsExactly(expected, within(1e-9));
    // An additive game is fitted without residual, so even a sampled regression is exact.
    ShapleyValues sampled = Shapley.kernel(game, 48, 5);
    assertThat(sampled.values()).containsExactly(expected, within(1e-9));
    assertThat(sampled.standardError(0)).isLessThan(1e-9);
  }

  @Test
  void kernelEnumerationEqualsExactShapleyOnAGameWithInteractions() {
    CoalitionGame game = interactions(10, 5);
    ShapleyValues exact = Shapley.exact(game);

    ShapleyValues kernel = Shapley.kernel(game, 1022, 1);

    assertThat(kernel.values()).containsExactly(exact.values(), within(1e-9));
    assertThat(kernel.efficiencyGap()).isCloseTo(0, within(1e-12));
    assertThat(kernel.evaluations()).isEqualTo(1024);
  }

  @Test
  void samplingEstimatorsLandWithinAFewStandardErrorsOfExact() {
    CoalitionGame game = interactions(10, 9);
    ShapleyValues exact = Shapley.exact(game);

    ShapleyValues permutation = Shapley.permutation(game, 400, 3);
    ShapleyValues kernel = Shapley.kernel(game, 600, 3);

    for (ShapleyValues estimate : List.of(permutation, kernel)) {
      for (int i = 0; i < 10; i++) {
        assertThat(estimate.standardError(i)).isPositive();
        assertThat(Math.abs(estimate.value(i) - exact.value(i)))
            .as("%s player %d", estimate.method(), i)
            .isLessThanOrEqualTo(4 * estimate.standardError(i));
      }
      assertThat(estimate.efficiencyGap()).isCloseTo(0, within(1e-9));
    }
  }

  @Test
  void reportedStandardErrorsMatchTheSpreadOverSeeds() {
    // Over 300 seeds the estimates' root-mean-square error around the exact value should match the
    // root-mean-square of the reported standard errors.
    CoalitionGame game = interactions(10, 9);
    double[] exact = Shapley.exact(game).values();
    for (String method : List.of("permutation", "kernel")) {
      double squaredError = 0;
      double squaredSe = 0;
      int seeds = 300;
      for (int seed = 0; seed < seeds; seed++) {
        ShapleyValues v = method.equals("permutation") ? Shapley.permutation(game, 40, seed)
            : Shapley.kernel(game, 320, seed);
        for (int i = 0; i < 10; i++) {
          squaredError += Math.pow(v.value(i) - exact[i], 2);
          squaredSe += Math.pow(v.standardError(i), 2);
        }
      }
      double ratio = Math.sqrt(squaredError / squaredSe);
      assertThat(ratio).as(method).isBetween(0.8, 1.25);
    }
  }

  @Test
  void antitheticPairsHaveSmallerErrorsThanPlainOrderingsOnAMonotoneGame() {
    // v(S) = (Σ w_i)^1.5: monotone and convex, so a player's marginal contribution grows with its
    // position and the forward and reversed walks are negatively correlated.
    double[] w = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    CoalitionGame game = CoalitionGame.of(CoalitionGame.defaultNames(10), s -> {
      double sum = 0;
      for (int i = 0; i < 10; i++) {
        if ((s & (1L << i)) != 0) {
          sum += w[i];
        }
      }
      return Math.pow(sum, 1.5);
    });
    double[] exact = Shapley.exact(game).values();
    double antitheticSe = 0;
    double plainSe = 0;
    double antitheticError = 0;
    double plainError = 0;
    for (int seed = 0; seed < 100; seed++) {
      ShapleyValues antithetic = Shapley.permutation(game, 100, seed);
      ShapleyValues plain = PermutationShapley.estimate(game, 100, seed, false);
      assertThat(plain.method()).isEqualTo("permutation (plain)");
      for (int i = 0; i < 10; i++) {
        antitheticSe += antithetic.standardError(i);
        plainSe += plain.standardError(i);
        antitheticError += Math.pow(antithetic.value(i) - exact[i], 2);
        plainError += Math.pow(plain.value(i) - exact[i], 2);
      }
    }
    assertThat(antitheticSe).isLessThan(0.5 * plainSe);
    assertThat(antitheticError).isLessThan(0.25 * plainError);
  }

  @Test
  void theSameSeedReproducesTheSameValues() {
    CoalitionGame game = interactions(10, 2);

    assertThat(Shapley.permutation(game, 20, 42)).isEqualTo(Shapley.permutation(game, 20, 42));
    assertThat(Shapley.kernel(game, 200, 42)).isEqualTo(Shapley.kernel(game, 200, 42));
    assertThat(Shapley.permutation(game, 20, 42).values()).isNotEqualTo(Shapley.permutation(game, 20, 43).values());
    assertThat(Shapley.kernel(game, 200, 42).values()).isNotEqualTo(Shapley.kernel(game, 200, 43).values());
  }

  @Test
  void rejectsBadSampleCountsWithTheirValues() {
    CoalitionGame game = interactions(10, 2);

    assertThatThrownBy(() -> Shapley.permutation(game, 3, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 4").hasMessageContaining("3");
    assertThatThrownBy(() -> Shapley.permutation(game, 7, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("even").hasMessageContaining("7");
    assertThatThrownBy(() -> Shapley.kernel(game, 78, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least min(2^n − 2, 8n) = 80")
        .hasMessageContaining("78");
    assertThatThrownBy(() -> Shapley.kernel(game, 81, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("even");
    assertThatThrownBy(() -> Shapley.permutation(CoalitionGame.of(List.of("a", "b"), s -> s == 1 ? Double.NaN : 0),
        4, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("coalition 1 is NaN");
  }

  @Test
  void gamesWithoutOrWithOnePlayerAreTrivial() {
    CoalitionGame none = CoalitionGame.of(List.of(), s -> 5);
    CoalitionGame one = CoalitionGame.of(List.of("only"), s -> s == 0 ? 2 : 7);

    assertThat(Shapley.kernel(none, 0, 1).values()).isEmpty();
    assertThat(Shapley.permutation(none, 4, 1).values()).isEmpty();
    assertThat(Shapley.kernel(one, 0, 1).values()).containsExactly(5.0);
    assertThat(Shapley.permutation(one, 4, 1).values()).containsExactly(5.0);
    assertThat(Shapley.permutation(one, 4, 1).standardError(0)).isZero();
  }

  /** Additive terms, pairwise interactions and a threshold bonus over {@code n} players. */
  static CoalitionGame interactions(int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] w = new double[n];
    double[][] u = new double[n][n];
    for (int i = 0; i < n; i++) {
      w[i] = random.nextDouble(-1, 3);
      for (int j = 0; j < i; j++) {
        u[i][j] = random.nextDouble() < 0.3 ? random.nextDouble(-2, 2) : 0;
      }
    }
    return CoalitionGame.of(CoalitionGame.defaultNames(n), s -> {
      double v = 0;
      for (int i = 0; i < n; i++) {
        if ((s & (1L << i)) == 0) {
          continue;
        }
        v += w[i];
        for (int j = 0; j < i; j++) {
          if ((s & (1L << j)) != 0) {
            v += u[i][j];
          }
        }
      }
      return Long.bitCount(s) >= 7 ? v + 2 : v;
    });
  }

  private static CoalitionGame weightedMajority(int quota, int... weights) {
    return CoalitionGame.of(CoalitionGame.defaultNames(weights.length), s -> {
      int sum = 0;
      for (int i = 0; i < weights.length; i++) {
        if ((s & (1L << i)) != 0) {
          sum += weights[i];
        }
      }
      return sum >= quota ? 1 : 0;
    });
  }
}
