package io.infermark.attribution.shapley;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * The Shapley value of each player of a {@link CoalitionGame}, with the two values they split: the
 * empty coalition's ({@link #baseValue()}) and the grand coalition's ({@link #fullValue()}).
 *
 * <p>Efficiency — the values summing to {@code fullValue − baseValue} — is reported by
 * {@link #efficiencyGap()}, never assumed: it is zero up to rounding for exact values and for
 * estimators that enforce it, and it measures the sampling error of those that do not. Sampled
 * values carry a {@link #standardError(int) standard error} per player; exact ones carry zeros.
 */
public final class ShapleyValues {

  private final List<String> players;
  private final double[] values;
  private final double[] standardErrors;
  private final double baseValue;
  private final double fullValue;
  private final String method;
  private final long evaluations;

  private ShapleyValues(List<String> players, double[] values, double[] standardErrors, double baseValue,
      double fullValue, String method, long evaluations) {
    this.players = players;
    this.values = values;
    this.standardErrors = standardErrors;
    this.baseValue = baseValue;
    this.fullValue = fullValue;
    this.method = method;
    this.evaluations = evaluations;
  }

  /**
   * Shapley values as computed by {@code method} ("exact", "permutation", …).
   *
   * @param standardErrors one per player, all zero for exact values
   * @param evaluations how many times the game's value function was called
   * @throws IllegalArgumentException if the arrays do not match the players or hold non-finite values
   * @throws NullPointerException naming the argument, if one (or a player name) is null
   */
  public static ShapleyValues of(List<String> players, double[] values, double[] standardErrors, double baseValue,
      double fullValue, String method, long evaluations) {
    Objects.requireNonNull(players, "players");
    Objects.requireNonNull(values, "values");
    Objects.requireNonNull(standardErrors, "standardErrors");
    Objects.requireNonNull(method, "method");
    int index = 0;
    for (String player : players) {
      Objects.requireNonNull(player, "player " + index + " is null");
      index++;
    }
    List<String> names = List.copyOf(players);
    if (values.length != names.size() || standardErrors.length != names.size()) {
      throw new IllegalArgumentException("expected " + names.size() + " values and standard errors, was "
          + values.length + " and " + standardErrors.length);
    }
    for (int i = 0; i < values.length; i++) {
      if (!Double.isFinite(values[i]) || !(standardErrors[i] >= 0) || Double.isInfinite(standardErrors[i])) {
        throw new IllegalArgumentException("player " + names.get(i) + " has value " + values[i]
            + " and standard error " + standardErrors[i] + "; both must be finite, the error non-negative");
      }
    }
    if (!Double.isFinite(baseValue) || !Double.isFinite(fullValue)) {
      throw new IllegalArgumentException("base and full values must be finite, was " + baseValue + " and " + fullValue);
    }
    if (evaluations < 0) {
      throw new IllegalArgumentException("evaluations must be >= 0, was " + evaluations);
    }
    return new ShapleyValues(names, values.clone(), standardErrors.clone(), baseValue, fullValue, method, evaluations);
  }

  /** The players, in the game's order. */
  public List<String> players() {
    return players;
  }

  /** The Shapley value of player {@code i}. */
  public double value(int i) {
    return values[i];
  }

  /**
   * The Shapley value of the named player.
   *
   * @throws IllegalArgumentException if there is no such player
   */
  public double value(String player) {
    return values[indexOf(player)];
  }

  /** All values, in player order; a copy. */
  public double[] values() {
    return values.clone();
  }

  /** The standard error of player {@code i}'s value; zero when it was computed exactly. */
  public double standardError(int i) {
    return standardErrors[i];
  }

  /** The value of the empty coalition. */
  public double baseValue() {
    return baseValue;
  }

  /** The value of the grand coalition. */
  public double fullValue() {
    return fullValue;
  }

  /** The sum of all players' values. */
  public double sum() {
    double s = 0;
    for (double v : values) {
      s += v;
    }
    return s;
  }

  /** {@code fullValue − baseValue − sum()}: how far the values are from adding up. */
  public double efficiencyGap() {
    return fullValue - baseValue - sum();
  }

  /** How the values were computed: "exact", "permutation", "kernel", …. */
  public String method() {
    return method;
  }

  /** How many times the game's value function was evaluated. */
  public long evaluations() {
    return evaluations;
  }

  /** Player names ordered by decreasing absolute value (ties keep game order). */
  public List<String> ranking() {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      order.add(i);
    }
    order.sort(Comparator.comparingDouble((Integer i) -> -Math.abs(values[i])));
    List<String> out = new ArrayList<>(order.size());
    for (int i : order) {
      out.add(players.get(i));
    }
    return List.copyOf(out);
  }

  private int indexOf(String player) {
    int i = players.indexOf(player);
    if (i < 0) {
      throw new IllegalArgumentException("no player named '" + player + "'; players are " + players);
    }
    return i;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ShapleyValues s && s.players.equals(players) && Arrays.equals(s.values, values)
        && Arrays.equals(s.standardErrors, standardErrors) && Double.compare(s.baseValue, baseValue) == 0
        && Double.compare(s.fullValue, fullValue) == 0 && s.method.equals(method) && s.evaluations == evaluations;
  }

  @Override
  public int hashCode() {
    return 31 * players.hashCode() + Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", "ShapleyValues[" + method + ", ", "]");
    j.add(String.format(Locale.ROOT, "base=%.6g", baseValue));
    j.add(String.format(Locale.ROOT, "full=%.6g", fullValue));
    for (int i = 0; i < values.length; i++) {
      j.add(String.format(Locale.ROOT, "%s=%+.6g", players.get(i), values[i]));
    }
    j.add(String.format(Locale.ROOT, "gap=%.3g", efficiencyGap()));
    return j.toString();
  }
}
