package io.infermark.attribution.shapley;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Shapley values estimated by walking random orderings of the players: a player's value is the mean of
 * its marginal contribution {@code v(P ∪ {i}) − v(P)}, {@code P} the players before it.
 *
 * <p>Antithetic: every sampled permutation is walked forwards and then backwards. A player late in one
 * walk is early in the other, so for games whose marginal contributions grow or shrink with the
 * coalition (monotone, convex, concave ones) the two contributions are negatively correlated and their
 * mean varies less than either. The pairs are independent, the two halves of a pair are not, so the
 * standard error is computed from the pair means: {@code sd(pair means) / √pairs} (sample standard
 * deviation, {@code pairs − 1} degrees of freedom).
 *
 * <p>Efficiency holds exactly, not statistically: along any ordering the marginal contributions
 * telescope to {@code v(N) − v(∅)}, so each permutation's contributions sum to it and so does their
 * mean. {@code v(∅)} and {@code v(N)} are evaluated once and reused by every walk so that this holds
 * even for a game whose values are reproduced only up to rounding; the reported efficiency gap is then
 * floating-point summation error only.
 */
final class PermutationShapley {

  private PermutationShapley() {
  }

  /**
   * Estimates the values from {@code permutations} orderings.
   *
   * @param antithetic walk each sampled ordering and its reverse (pairs are the independent units), or
   *     walk {@code permutations} independent orderings
   */
  static ShapleyValues estimate(CoalitionGame game, int permutations, long seed, boolean antithetic) {
    List<String> players = Shapley.players(game);
    int n = players.size();
    int unitSize = antithetic ? 2 : 1;
    if (permutations < 2 * unitSize) {
      throw new IllegalArgumentException("permutations must be at least " + 2 * unitSize
          + " (two independent " + (antithetic ? "antithetic pairs" : "orderings") + " for a standard error), was "
          + permutations);
    }
    if (antithetic && permutations % 2 != 0) {
      throw new IllegalArgumentException("permutations must be even (each sampled ordering is walked with its"
          + " reverse), was " + permutations);
    }
    double empty = finiteValue(game, 0);
    double full = finiteValue(game, game.fullCoalition());
    if (n == 0) {
      return ShapleyValues.of(players, new double[0], new double[0], empty, full, "permutation", 2);
    }
    int units = permutations / unitSize;
    SplittableRandom random = new SplittableRandom(seed);
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    double[] unit = new double[n];
    // Welford's running mean and sum of squared deviations of the per-unit contributions.
    double[] mean = new double[n];
    double[] m2 = new double[n];
    long evaluations = 2;
    for (int u = 1; u <= units; u++) {
      shuffle(order, random);
      Arrays.fill(unit, 0);
      evaluations += walk(game, order, false, empty, full, unit);
      if (antithetic) {
        evaluations += walk(game, order, true, empty, full, unit);
      }
      for (int i = 0; i < n; i++) {
        double x = unit[i] / unitSize;
        double d = x - mean[i];
        mean[i] += d / u;
        m2[i] += d * (x - mean[i]);
      }
    }
    double[] se = new double[n];
    for (int i = 0; i < n; i++) {
      se[i] = Math.sqrt(m2[i] / (units - 1) / units);
    }
    return ShapleyValues.of(players, mean, se, empty, full, antithetic ? "permutation" : "permutation (plain)",
        evaluations);
  }

  /**
   * Adds each player's marginal contribution along {@code order} (or its reverse) to {@code sums};
   * returns the number of value evaluations (the end points are the cached {@code empty} and
   * {@code full}).
   */
  private static int walk(CoalitionGame game, int[] order, boolean reverse, double empty, double full,
      double[] sums) {
    int n = order.length;
    long coalition = 0;
    double previous = empty;
    for (int k = 0; k < n; k++) {
      int player = order[reverse ? n - 1 - k : k];
      coalition |= 1L << player;
      double value = k == n - 1 ? full : finiteValue(game, coalition);
      sums[player] += value - previous;
      previous = value;
    }
    return n - 1;
  }

  private static void shuffle(int[] a, SplittableRandom random) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  static double finiteValue(CoalitionGame game, long coalition) {
    double v = game.value(coalition);
    if (!Double.isFinite(v)) {
      throw new IllegalArgumentException("the value of coalition " + Long.toBinaryString(coalition) + " is " + v);
    }
    return v;
  }
}
