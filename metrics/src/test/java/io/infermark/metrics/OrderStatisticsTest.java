package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OrderStatisticsTest {

  @Test
  void placesEveryRequestedRankWhereASortWouldPutIt() {
    SplittableRandom random = new SplittableRandom(11);
    for (int trial = 0; trial < 500; trial++) {
      int n = 1 + random.nextInt(trial < 400 ? 200 : 20_000);
      // Few distinct values in some trials: latencies from integer nanoseconds repeat.
      int distinct = trial % 3 == 0 ? 1 + random.nextInt(5) : Integer.MAX_VALUE;
      double[] a = new double[n];
      for (int i = 0; i < n; i++) {
        a[i] = distinct == Integer.MAX_VALUE ? random.nextDouble() * 1000 : random.nextInt(distinct);
      }
      double[] expected = a.clone();
      Arrays.sort(expected);
      int[] ranks = new int[1 + random.nextInt(12)];
      for (int i = 0; i < ranks.length; i++) {
        ranks[i] = random.nextInt(n);
      }

      OrderStatistics.select(a, ranks);

      for (int k : ranks) {
        assertThat(a[k]).as("trial %d, n %d, rank %d", trial, n, k).isEqualTo(expected[k]);
      }
      double[] sortedAfter = a.clone();
      Arrays.sort(sortedAfter);
      assertThat(Arrays.equals(sortedAfter, expected)).as("selection only reorders, trial %d", trial).isTrue();
    }
  }

  @Test
  void handlesSortedReversedAndConstantInputs() {
    int n = 100_000;
    double[] ascending = new double[n];
    double[] descending = new double[n];
    double[] constant = new double[n];
    for (int i = 0; i < n; i++) {
      ascending[i] = i;
      descending[i] = n - 1 - i;
      constant[i] = 7;
    }
    int[] ranks = {0, n / 2, n * 9 / 10, n * 99 / 100, n - 1};

    OrderStatistics.select(ascending, ranks);
    OrderStatistics.select(descending, ranks);
    OrderStatistics.select(constant, ranks);

    for (int k : ranks) {
      assertThat(ascending[k]).isEqualTo(k);
      assertThat(descending[k]).isEqualTo(k);
      assertThat(constant[k]).isEqualTo(7);
    }
  }

  @Test
  void rejectsRanksOutsideTheArray() {
    assertThatThrownBy(() -> OrderStatistics.select(new double[] {1, 2, 3}, new int[] {3}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ranks must be in [0, 3)");
  }
}
