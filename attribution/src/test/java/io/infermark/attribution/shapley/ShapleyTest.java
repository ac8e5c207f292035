package io.infermark.attribution.shapley;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ShapleyTest {

  @Test
  void gloveGameHasTheTextbookValues() {
    // Player 0 holds a left glove, players 1 and 2 right gloves; a pair is worth 1.
    // Shapley values: left 2/3, each right 1/6.
    CoalitionGame glove = CoalitionGame.of(List.of("left", "right1", "right2"),
        s -> (s & 1) != 0 && (s & 6) != 0 ? 1 : 0);

    ShapleyValues phi = Shapley.exact(glove);

    assertThat(phi.value("left")).isCloseTo(2.0 / 3, within(1e-12));
    assertThat(phi.value("right1")).isCloseTo(1.0 / 6, within(1e-12));
    assertThat(phi.value("right2")).isCloseTo(1.0 / 6, within(1e-12));
    assertThat(phi.efficiencyGap()).isCloseTo(0, within(1e-12));
    assertThat(phi.evaluations()).isEqualTo(8);
    assertThat(phi.ranking().get(0)).isEqualTo("left");
  }

  @Test
  void airportGameSplitsEachRunwaySegmentAmongItsUsers() {
    // Runway costs 1, 3, 6: the classic airport game. Segment k is shared by players k..n-1:
    // φ0 = 1/3, φ1 = 1/3 + 2/2 = 4/3, φ2 = 4/3 + 3/1 = 13/3.
    double[] cost = {1, 3, 6};
    CoalitionGame airport = CoalitionGame.of(List.of("small", "medium", "large"), s -> {
      double max = 0;
      for (int i = 0; i < 3; i++) {
        if ((s & (1L << i)) != 0) {
          max = Math.max(max, cost[i]);
        }
      }
      return max;
    });

    ShapleyValues phi = Shapley.exact(airport);

    assertThat(phi.values()).containsExactly(new double[] {1.0 / 3, 4.0 / 3, 13.0 / 3}, within(1e-12));
    assertThat(phi.baseValue()).isZero();
    assertThat(phi.fullValue()).isEqualTo(6);
  }

  @Test
  void additiveGameGivesEachPlayerItsOwnContribution() {
    double[] w = new double[16];
    for (int i = 0; i < w.length; i++) {
      w[i] = i * 0.5 - 3;
    }
    CoalitionGame additive = CoalitionGame.of(CoalitionGame.defaultNames(16), s -> {
      double sum = 10;
      for (int i = 0; i < 16; i++) {
        if ((s & (1L << i)) != 0) {
          sum += w[i];
        }
      }
      return sum;
    });

    ShapleyValues phi = Shapley.exact(additive);

    assertThat(phi.values()).containsExactly(w, within(1e-9));
    assertThat(phi.baseValue()).isEqualTo(10);
  }

  @Test
  void weightsAreTheShapleyKernelCoefficients() {
    // n = 4: 0!3!/4! = 1/4, 1!2!/4! = 1/12, 2!1!/4! = 1/12, 3!0!/4! = 1/4.
    assertThat(Shapley.weights(4)).containsExactly(new double[] {0.25, 1.0 / 12, 1.0 / 12, 0.25, 0}, within(1e-15));
  }

  @Test
  void rejectsTooManyPlayersAndNonFiniteValues() {
    assertThatThrownBy(() -> Shapley.exact(CoalitionGame.of(CoalitionGame.defaultNames(21), s -> 0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 20");
    assertThatThrownBy(() -> Shapley.exact(CoalitionGame.of(List.of("a"), s -> s == 1 ? Double.NaN : 0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("coalition 1");
    assertThatThrownBy(() -> CoalitionGame.of(List.of("a", "a"), s -> 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("distinct");
  }

  @Test
  void gamesWithMorePlayersThanACoalitionHoldsAreRejectedByEveryMethod() {
    // A custom game is not checked by CoalitionGame.of; with 66 players 1L << 64 wraps to bit 0, and
    // permutation sampling used to return 0.5 per player of this additive game with an efficiency gap of 0.
    List<String> names = IntStream.range(0, 66).mapToObj(i -> "p" + i).toList();
    CoalitionGame wide = new CoalitionGame() {
      @Override
      public List<String> players() {
        return names;
      }

      @Override
      public double value(long coalition) {
        return Long.bitCount(coalition);
      }
    };

    assertThatThrownBy(wide::fullCoalition).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 63 players").hasMessageContaining("was 66");
    assertThatThrownBy(() -> Shapley.exact(wide)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 63 players").hasMessageContaining("was 66");
    assertThatThrownBy(() -> Shapley.permutation(wide, 4, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 63 players").hasMessageContaining("was 66");
    assertThatThrownBy(() -> Shapley.kernel(wide, 1000, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 63 players").hasMessageContaining("was 66");
  }

  @Test
  void nullArgumentsAreNamedInTheirExceptions() {
    List<String> one = List.of("a");
    double[] zero = {0};
    assertThatThrownBy(() -> ShapleyValues.of(one, zero, zero, 0, 0, null, 1))
        .isInstanceOf(NullPointerException.class).hasMessage("method");
    assertThatThrownBy(() -> ShapleyValues.of(java.util.Arrays.asList((String) null), zero, zero, 0, 0, "exact", 1))
        .isInstanceOf(NullPointerException.class).hasMessage("player 0 is null");
    assertThatThrownBy(() -> CoalitionGame.of(java.util.Arrays.asList("a", null), s -> 0))
        .isInstanceOf(NullPointerException.class).hasMessage("player 1 is null");
    assertThatThrownBy(() -> Shapley.exact(null)).isInstanceOf(NullPointerException.class).hasMessage("game");
  }

  @Test
  void sixtyThreePlayersStillWork() {
    CoalitionGame additive = CoalitionGame.of(CoalitionGame.defaultNames(63), s -> Long.bitCount(s));

    assertThat(additive.fullCoalition()).isEqualTo(Long.MAX_VALUE);
    ShapleyValues phi = Shapley.permutation(additive, 4, 1);
    for (int i = 0; i < 63; i++) {
      assertThat(phi.value(i)).isCloseTo(1, within(1e-12));
    }
  }
}
