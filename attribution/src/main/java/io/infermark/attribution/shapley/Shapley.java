package io.infermark.attribution.shapley;

import java.util.List;

/**
 * Computes Shapley values of a {@link CoalitionGame}.
 *
 * <p>{@link #exact(CoalitionGame)} evaluates every one of the {@code 2^n} coalitions once and is the
 * reference the sampling estimators are tested against; it takes up to {@value #MAX_EXACT_PLAYERS}
 * players.
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
    List<String> players = game.players();
    int n = players.size();
    if (n > MAX_EXACT_PLAYERS) {
      throw new IllegalArgumentException("exact Shapley takes at most " + MAX_EXACT_PLAYERS + " players, got " + n
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
   * {@code w[s] = s!(n−s−1)!/n!} for {@code s = 0 … n−1}, computed as a product to stay finite, and
   * {@code w[n] = 0} (the grand coalition has no one left to add).
   */
  static double[] weights(int n) {
    double[] w = new double[n + 1];
    for (int s = 0; s < n; s++) {
      // s!(n-s-1)!/n! = 1 / (n * C(n-1, s))
      double c = 1;
      for (int k = 1; k <= s; k++) {
        c = c * (n - 1 - s + k) / k;
      }
      w[s] = 1 / (n * c);
    }
    return w;
  }
}
