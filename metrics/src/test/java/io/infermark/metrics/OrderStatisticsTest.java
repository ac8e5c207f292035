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

  /** Shapes of data the histogram selection must get exactly right. */
  private static double[] sample(String shape, int n, SplittableRandom random) {
    double[] a = new double[n];
    for (int i = 0; i < n; i++) {
      double u = random.nextDouble();
      a[i] = switch (shape) {
        case "uniform" -> u * 1000;
        // Pareto with tail index 1.1: a few values are millions of times the median.
        case "heavy-tailed" -> 20 * Math.pow(1 - u, -1 / 1.1);
        // Integer nanoseconds as milliseconds, like pooled inter-token gaps: many repeats.
        case "integer-nanos" -> (18_000_000L + random.nextInt(4_000)) / 1e6;
        case "all-equal" -> 7.25;
        case "negative-and-zero" -> switch (random.nextInt(5)) {
          case 0 -> 0.0;
          case 1 -> -0.0;
          case 2 -> -u * 1e-300;
          case 3 -> -u * 1e300;
          default -> u;
        };
        case "two-values" -> random.nextInt(2) == 0 ? 1.5 : 2.5;
        default -> throw new IllegalArgumentException(shape);
      };
    }
    return a;
  }

  private static final String[] SHAPES =
      {"uniform", "heavy-tailed", "integer-nanos", "all-equal", "negative-and-zero", "two-values"};

  /** Ranks like those Distribution asks for: around the standard percentiles, plus both ends. */
  private static int[] percentileRanks(int n, SplittableRandom random) {
    double[] ps = {0, 0.5, 0.9, 0.95, 0.99, 0.999, 1};
    int[] ranks = new int[ps.length * 3 + 3];
    int r = 0;
    for (double p : ps) {
      int at = (int) Math.floor(p * (n - 1));
      for (int d = -1; d <= 1; d++) {
        ranks[r++] = Math.max(0, Math.min(n - 1, at + d));
      }
    }
    for (; r < ranks.length; r++) {
      ranks[r] = random.nextInt(n);
    }
    return ranks;
  }

  private static void assertSelectedLikeASort(double[] before, double[] after, int[] ranks, String what) {
    double[] expected = before.clone();
    Arrays.sort(expected);
    for (int k : ranks) {
      // Bit for bit, as Arrays.sort orders them: -0.0 before 0.0.
      assertThat(Double.compare(after[k], expected[k])).as("%s, rank %d: %s vs %s", what, k, after[k], expected[k])
          .isZero();
    }
    double[] sortedAfter = after.clone();
    Arrays.sort(sortedAfter);
    assertThat(Arrays.equals(sortedAfter, expected)).as("%s: selection only reorders", what).isTrue();
  }

  @Test
  void histogramSelectionEqualsAFullSortAtEveryRankForEveryShape() {
    SplittableRandom random = new SplittableRandom(12);
    for (String shape : SHAPES) {
      for (int n : new int[] {2, 3, 5, 17, 100, 1_000, 30_000, 200_000}) {
        double[] a = sample(shape, n, random);
        double[] before = a.clone();
        int[] ranks = percentileRanks(n, random);

        boolean selected = OrderStatistics.histogramSelect(a, OrderStatistics.distinctSorted(a, ranks));

        if (n <= 1 << OrderStatistics.BUCKET_BITS) {
          assertThat(selected).as("%s, n %d: this few values are always gathered", shape, n).isTrue();
        }
        if (selected) {
          assertSelectedLikeASort(before, a, ranks, shape + ", n " + n);
        } else {
          assertThat(Arrays.equals(a, before)).as("%s, n %d: declining leaves the array untouched", shape, n).isTrue();
        }
      }
    }
  }

  @Test
  void selectUsesTheHistogramAboveTheThresholdAndStaysExact() {
    SplittableRandom random = new SplittableRandom(13);
    for (String shape : new String[] {"heavy-tailed", "integer-nanos", "negative-and-zero", "two-values"}) {
      int n = OrderStatistics.HISTOGRAM_THRESHOLD + random.nextInt(1000);
      double[] a = sample(shape, n, random);
      double[] before = a.clone();
      int[] ranks = percentileRanks(n, random);

      OrderStatistics.select(a, ranks);

      assertSelectedLikeASort(before, a, ranks, shape);
    }
  }

  @Test
  void histogramSelectionDeclinesWhenTheWantedBucketsHoldMostValues() {
    // Two distinct values: the median's bucket holds half the array, too many to gather.
    double[] a = sample("two-values", 1 << 20, new SplittableRandom(14));
    double[] before = a.clone();

    boolean selected = OrderStatistics.histogramSelect(a, new int[] {a.length / 2});

    assertThat(selected).isFalse();
    assertThat(Arrays.equals(a, before)).as("declining leaves the array untouched").isTrue();
  }

  @Test
  void orderPreservingKeyOrdersNegativesZerosAndPositives() {
    double[] ascending = {-Double.MAX_VALUE, -1e300, -2, -1, -Double.MIN_VALUE, 0, Double.MIN_VALUE, 1e-300, 1, 2,
        1e300, Double.MAX_VALUE};
    for (int i = 1; i < ascending.length; i++) {
      assertThat(OrderStatistics.key(ascending[i - 1])).as("%s < %s", ascending[i - 1], ascending[i])
          .isLessThan(OrderStatistics.key(ascending[i]));
    }
    assertThat(OrderStatistics.key(-0.0)).isEqualTo(OrderStatistics.key(0.0));
  }
}
