package io.infermark.attribution.shapley;

import java.util.List;
import java.util.Objects;

/**
 * Computes Shapley values of a {@link CoalitionGame}.
 *
 * <p>{@link #exact(CoalitionGame)} evaluates every one of the {@code 2^n} coalitions once and is the
 * reference the sampling estimators are tested against; it takes up to {@value #MAX_EXACT_PLAYERS}
 * players. Beyond that (or when a value is expensive) two seeded estimators sample:
 * {@link #permutation(CoalitionGame, int, long)} walks random orderings and their reverses, and
 * {@link #kernel(CoalitionGame, int, long)} fits Kernel SHAP's weighted regression to sampled
 * coalitions. Both report a standard error per player and satisfy efficiency exactly (the values sum
 * to {@code v(N) − v(∅)} up to rounding), so {@link ShapleyValues#efficiencyGap()} stays at rounding
 * level for every method.
 */
public final class Shapley {

  /** The most players {@link #exact(CoalitionGame)} accepts ({@code 2^20} evaluations). */
  public static final int MAX_EXACT_PLAYERS = 20;

  private Shapley() {
  }

  /**
   * Exact Shapley values: {@code φ_i = Σ_{S ∌ i} |S|!(n−|S|−1)!/n! · (v(S ∪ {i}) − v(S))}, each
   * coalition's value computed once.
   *
   * @throws IllegalArgumentException if the game has more than {@value #MAX_EXACT_PLAYERS} players or
   *     a coalition's value is not finite
   */
  public static ShapleyValues exact(CoalitionGame game) {
    List<String> players = players(game);
    int n = players.size();
    if (n > MAX_EXACT_PLAYERS) {
      throw new IllegalArgumentException("exact Shapley takes at most " + MAX_EXACT_PLAYERS + " players, was " + n
          + "; sample instead");
    }
    int size = 1 << n;
    double[] v = new double[size];
    for (int s = 0; s < size; s++) {
      v[s] = game.value(s);
      if (!Double.isFinite(v[s])) {
        throw new IllegalArgumentException("the value of coalition " + Long.toBinaryString(s) + " is " + v[s]);
      }
    }
    double[] weight = weights(n);
    double[] phi = new double[n];
    for (int s = 0; s < size; s++) {
      double w = weight[Integer.bitCount(s)];
      for (int i = 0; i < n; i++) {
        int bit = 1 << i;
        if ((s & bit) == 0) {
          phi[i] += w * (v[s | bit] - v[s]);
        }
      }
    }
    return ShapleyValues.of(players, phi, new double[n], v[0], v[size - 1], "exact", size);
  }

  /**
   * Shapley values estimated by antithetic permutation sampling: {@code permutations / 2} orderings
   * drawn uniformly, each walked forwards and backwards, a player's value being the mean of its
   * marginal contributions {@code v(P ∪ {i}) − v(P)} over the walks.
   *
   * <p>Standard errors treat the forward–reverse pairs as the independent units:
   * {@code se_i = sd(pair means_i) / √(permutations / 2)}. For games whose marginal contributions rise
   * or fall with the coalition the two walks of a pair are negatively correlated, and the error is
   * smaller than that of as many independent orderings. Efficiency is exact: along any ordering the
   * marginal contributions telescope to {@code v(N) − v(∅)}, so each walk's contributions, and hence
   * their mean, sum to it; {@code v(∅)} and {@code v(N)} are evaluated once and shared by all walks.
   * Evaluates the game {@code 2 + permutations·(n − 1)} times; the same seed gives the same values.
   *
   * @param permutations orderings walked, an even number of at least 4 (two pairs, for an error)
   * @param seed the seed of the orderings
   * @throws IllegalArgumentException if {@code permutations} is odd or below 4, the game has more than
   *     {@link CoalitionGame#MAX_PLAYERS} players, or a value is not finite
   */
  public static ShapleyValues permutation(CoalitionGame game, int permutations, long seed) {
    return PermutationShapley.estimate(game, permutations, seed, true);
  }

  /**
   * Shapley values estimated by Kernel SHAP: the efficiency-constrained weighted least-squares fit of
   * an additive model to coalition values under the Shapley kernel
   * {@code π(S) = (n−1) / (C(n,|S|)·|S|·(n−|S|))}.
   *
   * <p>When {@code samples ≥ 2^n − 2} every proper non-empty coalition is enumerated with its kernel
   * weight and the result is the exact Shapley value (standard errors zero). Otherwise, like shap's
   * KernelExplainer, it enumerates whole coalition sizes from the extremes inwards (1 and {@code n−1}, then 2
   * and {@code n−2}, …) while the budget's kernel-proportional share covers them, and spends the rest on
   * inner-size coalitions drawn with probability proportional to their kernel weight, each paired with its
   * complement; the standard error is the robust (sandwich) one of the least-squares fit, with the
   * independent sampled pairs as units (enumerated coalitions add no variance). Efficiency is imposed
   * exactly by eliminating one player's value. Coalition values are cached, so a repeated draw is not
   * re-evaluated; the same seed gives the same values.
   *
   * @param samples coalitions in the fit: even, and at least {@code min(2^n − 2, 8n)}
   * @param seed the seed of the coalition draws
   * @throws IllegalArgumentException if {@code samples} is odd or too small, the game has more than
   *     {@link CoalitionGame#MAX_PLAYERS} players, or a value is not finite
   * @throws IllegalStateException if the sampled coalitions happen not to determine the values (a
   *     singular regression: sample more)
   */
  public static ShapleyValues kernel(CoalitionGame game, int samples, long seed) {
    return KernelShap.estimate(game, samples, seed);
  }

  /**
   * The game's players, checked to fit a coalition bit set: a custom {@link CoalitionGame} can name more
   * than {@link CoalitionGame#MAX_PLAYERS}, and {@code 1L << player} would then silently wrap around.
   *
   * @throws IllegalArgumentException if there are more than {@link CoalitionGame#MAX_PLAYERS} players
   */
  static List<String> players(CoalitionGame game) {
    Objects.requireNonNull(game, "game");
    List<String> players = game.players();
    int n = players.size();
    if (n > CoalitionGame.MAX_PLAYERS || game.playerCount() != n) {
      throw new IllegalArgumentException("a game has at most " + CoalitionGame.MAX_PLAYERS + " players (a coalition"
          + " is a bit set in a long), was " + n + (game.playerCount() != n ? " (playerCount() says "
          + game.playerCount() + ")" : ""));
    }
    return players;
  }

  /**
   * {@code w[s] = s!(n−s−1)!/n!} for {@code s = 0 … n−1}, computed as a product to stay finite, and
   * {@code w[n] = 0} (the grand coalition has no one left to add).
   */
  static double[] weights(int n) {
    double[] w = new double[n + 1];
    for (int s = 0; s < n; s++) {
      // s!(n-s-1)!/n! = 1 / (n * C(n-1, s))
      w[s] = 1 / (n * binomial(n - 1, s));
    }
    return w;
  }

  /** {@code C(n, k)} as a product of ratios, exact for the player counts here and finite beyond. */
  static double binomial(int n, int k) {
    double c = 1;
    for (int i = 1; i <= k; i++) {
      c = c * (n - k + i) / i;
    }
    return c;
  }
}
