package io.infermark.attribution.shapley;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongToDoubleFunction;

/**
 * A cooperative game: a value for every coalition of named players. A coalition is a bit set in a
 * {@code long}: player {@code i} is in it when bit {@code i} is set, so a game has at most 63
 * players. {@code value(0)} is the empty coalition and {@code value(fullCoalition())} the grand one.
 *
 * <p>In infermark the players are factors or phases and the value is a statistic (a percentile, a
 * prediction) computed with the coalition's factors taken from one source and the rest from
 * another; Shapley values then split {@code value(all) − value(none)} fairly among the players.
 * Implementations should be deterministic: exact algorithms ask for each coalition once, sampling
 * ones may ask repeatedly.
 */
public interface CoalitionGame {

  /** The most players a coalition bit set can hold. */
  int MAX_PLAYERS = 63;

  /** The players' names, in bit order; their count is the number of players. */
  List<String> players();

  /** The value of the coalition whose members are the set bits of {@code coalition}. */
  double value(long coalition);

  /** The number of players. */
  default int playerCount() {
    return players().size();
  }

  /**
   * The coalition of all players.
   *
   * @throws IllegalArgumentException if the game has more than {@link #MAX_PLAYERS} players (their
   *     coalitions do not fit in a {@code long})
   */
  default long fullCoalition() {
    int n = playerCount();
    if (n > MAX_PLAYERS) {
      throw new IllegalArgumentException(tooManyPlayers(n));
    }
    return n == 0 ? 0 : -1L >>> (64 - n);
  }

  /**
   * A game from player names and a value function.
   *
   * @throws IllegalArgumentException if there are more than {@link #MAX_PLAYERS} players, or a name
   *     is blank or repeated
   */
  static CoalitionGame of(List<String> players, LongToDoubleFunction value) {
    List<String> names = checkedNames(players);
    Objects.requireNonNull(value, "value");
    return new CoalitionGame() {
      @Override
      public List<String> players() {
        return names;
      }

      @Override
      public double value(long coalition) {
        return value.applyAsDouble(coalition);
      }

      @Override
      public String toString() {
        return "CoalitionGame" + names;
      }
    };
  }

  /** Players named {@code p0 … p(n−1)}. */
  static List<String> defaultNames(int players) {
    if (players < 0 || players > MAX_PLAYERS) {
      throw new IllegalArgumentException("players must be in [0, " + MAX_PLAYERS + "], was " + players);
    }
    List<String> names = new ArrayList<>(players);
    for (int i = 0; i < players; i++) {
      names.add("p" + i);
    }
    return List.copyOf(names);
  }

  /** The message for a game of {@code n > MAX_PLAYERS} players. */
  private static String tooManyPlayers(int n) {
    return "a game has at most " + MAX_PLAYERS + " players (a coalition is a bit set in a long), was " + n;
  }

  private static List<String> checkedNames(List<String> players) {
    Objects.requireNonNull(players, "players");
    int index = 0;
    for (String player : players) {
      Objects.requireNonNull(player, "player " + index + " is null");
      index++;
    }
    List<String> names = List.copyOf(players);
    if (names.size() > MAX_PLAYERS) {
      throw new IllegalArgumentException(tooManyPlayers(names.size()));
    }
    if (names.stream().anyMatch(String::isBlank)) {
      throw new IllegalArgumentException("player names must not be blank: " + names);
    }
    if (names.stream().distinct().count() != names.size()) {
      throw new IllegalArgumentException("player names must be distinct: " + names);
    }
    return names;
  }
}
