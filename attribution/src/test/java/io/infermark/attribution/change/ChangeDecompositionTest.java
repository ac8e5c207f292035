package io.infermark.attribution.change;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.attribution.shapley.CoalitionGame;
import io.infermark.attribution.shapley.Shapley;
import io.infermark.attribution.shapley.ShapleyValues;
import io.infermark.attribution.tree.TreeEnsemble;
import io.infermark.attribution.tree.TreeNode;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.Distribution;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ChangeDecompositionTest {

  private static final List<String> TWO = List.of("phase1", "phase2");

  /**
   * 101 requests, so P99 (linear, position 0.99 × 100 = 99) is the second largest outcome. 99 requests
   * take 1 + 1 ms in both runs; two tail requests change:
   *
   * <pre>
   *          run A      run B
   *   tail1  50 + 50    150 + 60   (210)
   *   tail2  50 + 50     50 + 130  (180)
   * </pre>
   *
   * v(∅) = P99(A) = 100, v(N) = P99(B) = 180 (second of 210, 180). Phase 1 alone from B: outcomes 200 and
   * 100, so v({1}) = 100. Phase 2 alone: 110 and 180, so v({2}) = 110. One at a time, phase 1 first:
   * phase 1 +0, phase 2 +80; phase 2 first: phase 2 +10, phase 1 +70. Shapley (the mean of the two
   * orders for two players): phase 1 35, phase 2 45, summing to the change of 80.
   */
  @Test
  void oneAtATimeSubstitutionDependsOnOrderWhileShapleyAveragesTheOrders() {
    ComponentTable a = twoPhaseRun(new double[] {50, 50}, new double[] {50, 50}, false);
    ComponentTable b = twoPhaseRun(new double[] {150, 60}, new double[] {50, 130}, true);

    PercentileChange why = ChangeDecomposition.builder().build().decompose(a, b);

    assertThat(why.coupling()).isEqualTo(Coupling.PAIRED);
    assertThat(why.statistic()).isEqualTo("p99");
    assertThat(why.statisticA()).isCloseTo(100, within(1e-9));
    assertThat(why.statisticB()).isCloseTo(180, within(1e-9));
    assertThat(why.change()).isCloseTo(80, within(1e-9));
    assertThat(why.forwardSubstitution()).containsExactly(new double[] {0, 80}, within(1e-9));
    assertThat(why.reverseSubstitution()).containsExactly(new double[] {70, 10}, within(1e-9));
    assertThat(why.orderDependence()).isCloseTo(70, within(1e-9));
    assertThat(why.contribution("phase1")).isCloseTo(35, within(1e-9));
    assertThat(why.contribution("phase2")).isCloseTo(45, within(1e-9));
    assertThat(why.efficiencyGap()).isCloseTo(0, within(1e-9));
    assertThat(why.ranking()).containsExactly("phase2", "phase1");
    assertThat(why.method()).isEqualTo("exact");
    assertThat(why.toString()).doesNotContain("\n").contains("p99 100.000 → 180.000 ms (+80.000)")
        .contains("phase2 +45.000").contains("PAIRED over 101 requests");
  }

  @Test
  void contributionsDoNotDependOnTheOrderOfTheComponents() {
    ComponentTable a = twoPhaseRun(new double[] {50, 50}, new double[] {50, 50}, false);
    ComponentTable b = twoPhaseRun(new double[] {150, 60}, new double[] {50, 130}, true);
    ComponentTable swappedA = swapColumns(a);
    ComponentTable swappedB = swapColumns(b);

    PercentileChange swapped = ChangeDecomposition.builder().build().decompose(swappedA, swappedB);
    // B's columns are matched to A's by name, whatever their order.
    PercentileChange mixed = ChangeDecomposition.builder().build().decompose(a, swappedB);

    for (PercentileChange why : List.of(swapped, mixed)) {
      assertThat(why.contribution("phase1")).isCloseTo(35, within(1e-9));
      assertThat(why.contribution("phase2")).isCloseTo(45, within(1e-9));
    }
    assertThat(swapped.components()).containsExactly("phase2", "phase1");
  }

  @Test
  void percentileGameMatchesSortingEveryCoalition() {
    // Heavy-tailed components on 5000 paired requests: every coalition's value, from the Gray-code walk,
    // the pruning and the thresholded selection, equals the linear percentile of freshly summed outcomes.
    int k = 7;
    double[][] ra = randomRows(5000, k, 1);
    double[][] rb = randomRows(5000, k, 2);
    for (double p : new double[] {0.99, 0.999, 0.5, 0.9, 1.0, 0.0, 0.123}) {
      assertGameMatchesSorting(ra, rb, p);
    }
  }

  @Test
  void percentileGameMatchesSortingWhenOutcomesTie() {
    // Whole milliseconds from a small range: many requests share the values at the percentile's ranks.
    int k = 5;
    SplittableRandom random = new SplittableRandom(12);
    double[][] ra = new double[3000][k];
    double[][] rb = new double[3000][k];
    for (int r = 0; r < 3000; r++) {
      for (int j = 0; j < k; j++) {
        ra[r][j] = random.nextInt(4);
        rb[r][j] = random.nextInt(5);
      }
    }
    for (double p : new double[] {0.99, 0.95, 0.5}) {
      assertGameMatchesSorting(ra, rb, p);
    }
  }

  @Test
  void requestsThatCannotReachTheTailAreNotEvaluated() {
    int k = 6;
    double[][] ra = randomRows(20_000, k, 13);
    double[][] rb = new double[20_000][];
    for (int r = 0; r < rb.length; r++) {
      rb[r] = ra[r].clone();
      rb[r][2] *= 1.2;
    }
    List<String> names = CoalitionGame.defaultNames(k);
    ComponentSwapGame game = new ComponentSwapGame(names, CoupledRuns.byRank(ComponentTable.of(names, ra),
        ComponentTable.of(names, rb), Optional.empty()), Optional.empty(), ChangeStatistic.percentile(0.99));

    // Only one component moves (by 20 %), so about a fifth of the requests can ever reach the P99 ranks.
    assertThat(game.evaluatedRequests()).isLessThan(5_000);
    assertThat(game.value(0b111111)).isCloseTo(Distribution.of(sums(rb)).p99().getAsDouble(), within(1e-9));
    assertThat(game.value(0)).isCloseTo(Distribution.of(sums(ra)).p99().getAsDouble(), within(1e-9));
  }

  private static void assertGameMatchesSorting(double[][] ra, double[][] rb, double p) {
    int n = ra.length;
    int k = ra[0].length;
    List<String> names = CoalitionGame.defaultNames(k);
    CoupledRuns runs = CoupledRuns.byRank(ComponentTable.of(names, ra), ComponentTable.of(names, rb),
        Optional.empty());
    double[] table = new ComponentSwapGame(names, runs, Optional.empty(), ChangeStatistic.percentile(p)).valueTable();
    for (int s = 0; s < table.length; s++) {
      double[] y = new double[n];
      for (int r = 0; r < n; r++) {
        for (int j = 0; j < k; j++) {
          y[r] += ((s >> j) & 1) != 0 ? runs.b[j][r] : runs.a[j][r];
        }
      }
      assertThat(table[s]).as("p=%s coalition %s", p, s)
          .isCloseTo(Distribution.of(y).percentile(p).getAsDouble(), within(1e-9));
    }
  }

  @Test
  void meanChangeSplitsIntoEachComponentsMeanChange() {
    // The mean is additive, so each component's Shapley value is its own mean change.
    double[][] ra = randomRows(800, 5, 3);
    double[][] rb = randomRows(800, 5, 4);
    List<String> names = CoalitionGame.defaultNames(5);

    PercentileChange why = ChangeDecomposition.builder().statistic(ChangeStatistic.mean()).coupling(Coupling.BY_RANK)
        .build().decompose(ComponentTable.of(names, ra), ComponentTable.of(names, rb));

    for (int j = 0; j < 5; j++) {
      double meanA = 0;
      double meanB = 0;
      for (int r = 0; r < 800; r++) {
        meanA += ra[r][j] / 800;
        meanB += rb[r][j] / 800;
      }
      assertThat(why.contribution(j)).isCloseTo(meanB - meanA, within(1e-9));
    }
    assertThat(why.statistic()).isEqualTo("mean");
    assertThat(why.orderDependence()).isLessThan(1e-9);
  }

  @Test
  void rowModelOutcomesAreDecomposedLikeSortedBruteForce() {
    // A non-additive model: the slower of two parallel paths plus a fixed cost.
    RowModel slowerPath = row -> 5 + Math.max(row[0] + row[1], row[2]);
    List<String> names = List.of("x", "y", "z");
    double[][] ra = randomRows(600, 3, 5);
    double[][] rb = randomRows(600, 3, 6);
    List<String> keys = new ArrayList<>();
    for (int r = 0; r < 600; r++) {
      keys.add("req-" + r);
    }
    ComponentTable a = ComponentTable.of(names, ra, keys);
    ComponentTable b = ComponentTable.of(names, rb, keys);

    PercentileChange why = ChangeDecomposition.builder().model(slowerPath).percentile(0.95).build().decompose(a, b);

    CoalitionGame brute = CoalitionGame.of(names, s -> {
      double[] y = new double[600];
      for (int r = 0; r < 600; r++) {
        double[] row = new double[3];
        for (int j = 0; j < 3; j++) {
          row[j] = ((s >> j) & 1) != 0 ? rb[r][j] : ra[r][j];
        }
        y[r] = slowerPath.predict(row);
      }
      return Distribution.of(y).percentile(0.95).getAsDouble();
    });
    assertThat(why.contributions()).containsExactly(Shapley.exact(brute).values(), within(1e-9));
    assertThat(why.statisticB()).isCloseTo(brute.value(7), within(1e-9));
  }

  @Test
  void pairedCouplingFailsOnUnmatchedKeysUnlessToldToDropThem() {
    double[][] rows = randomRows(4, 2, 7);
    ComponentTable a = ComponentTable.of(TWO, rows, List.of("1", "2", "3", "4"));
    ComponentTable b = ComponentTable.of(TWO, rows, List.of("2", "3", "4", "5"));

    assertThatThrownBy(() -> ChangeDecomposition.builder().build().decompose(a, b))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 requests of run A and 1 of run B have no partner")
        .hasMessageContaining("A only: 1; B only: 5");
    PercentileChange dropped = ChangeDecomposition.builder().dropUnmatched(true).percentile(0.5).build()
        .decompose(a, b);
    assertThat(dropped.coupledRequests()).isEqualTo(3);
    assertThat(dropped.droppedA()).isEqualTo(1);
    assertThat(dropped.droppedB()).isEqualTo(1);
    assertThat(dropped.toString()).contains("dropped 1 of A, 1 of B");
    assertThatThrownBy(() -> ChangeDecomposition.builder().coupling(Coupling.PAIRED).build()
        .decompose(ComponentTable.of(TWO, rows), b))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("run A's table has none");
  }

  @Test
  void byRankCouplingOfDifferentSizesKeepsTheLargerRunExact() {
    List<String> names = CoalitionGame.defaultNames(3);
    double[][] ra = randomRows(150, 3, 8);
    double[][] rb = randomRows(400, 3, 9);

    PercentileChange why = ChangeDecomposition.builder().build()
        .decompose(ComponentTable.of(names, ra), ComponentTable.of(names, rb));

    assertThat(why.coupling()).isEqualTo(Coupling.BY_RANK);
    assertThat(why.coupledRequests()).isEqualTo(400);
    assertThat(why.statisticB()).isCloseTo(Distribution.of(sums(rb)).p99().getAsDouble(), within(1e-9));
    // A is resampled at 400 levels by nearest rank: its P99 lies between neighbouring order statistics.
    double[] sortedA = Distribution.of(sums(ra)).sortedValuesMillis();
    assertThat(why.statisticA()).isBetween(sortedA[146], sortedA[149]);
    assertThat(why.efficiencyGap()).isCloseTo(0, within(1e-9));
  }

  @Test
  void byRankCouplingOfEqualSizesMatchesTheIthFastestRequests() {
    // A's outcomes 3, 10, 30 (rows given out of order); B's 4, 40, 12. By rank: 3↔4, 10↔12, 30↔40.
    // The maximum (p = 1) moves from 30 = 20 + 10 to 40 = 5 + 35. The top pair stays the maximum in
    // every coalition (v({phase1}) = 5 + 10 = 15, v({phase2}) = 20 + 35 = 55), so the game is additive
    // on it: phase1 gets 5 − 20 = −15 and phase2 35 − 10 = +25.
    ComponentTable a = ComponentTable.of(TWO, new double[][] {{20, 10}, {1, 2}, {5, 5}});
    ComponentTable b = ComponentTable.of(TWO, new double[][] {{2, 2}, {5, 35}, {6, 6}});

    PercentileChange why = ChangeDecomposition.builder().percentile(1.0).build().decompose(a, b);

    assertThat(why.statistic()).isEqualTo("p100");
    assertThat(why.statisticA()).isEqualTo(30);
    assertThat(why.statisticB()).isEqualTo(40);
    assertThat(why.contributions()).containsExactly(new double[] {-15, 25}, within(1e-12));
  }

  @Test
  void manyComponentsAreSampledAndAgreeWithExactWithinTheirErrors() {
    int k = 14;
    List<String> names = CoalitionGame.defaultNames(k);
    ComponentTable a = ComponentTable.of(names, randomRows(2000, k, 10));
    ComponentTable b = ComponentTable.of(names, randomRows(2000, k, 11));

    PercentileChange exact = ChangeDecomposition.builder().build().decompose(a, b);
    PercentileChange sampled = ChangeDecomposition.builder().exactUpTo(8).permutations(400).seed(3).build()
        .decompose(a, b);

    assertThat(sampled.method()).isEqualTo("permutation");
    assertThat(sampled.efficiencyGap()).isCloseTo(0, within(1e-9));
    assertThat(sampled.change()).isCloseTo(exact.change(), within(1e-9));
    for (int j = 0; j < k; j++) {
      assertThat(sampled.standardError(j)).isPositive();
      assertThat(Math.abs(sampled.contribution(j) - exact.contribution(j)))
          .isLessThanOrEqualTo(4 * sampled.standardError(j));
    }
    assertThat(sampled.toString()).contains("±");
    assertThat(ChangeDecomposition.builder().exactUpTo(8).permutations(400).seed(3).build().decompose(a, b))
        .isEqualTo(sampled);
  }

  @Test
  void tablesFromRecordsSkipFailedAndWarmupRequestsAndCarryKeys() {
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      records.add(RequestRecord.builder().index(i).httpStatus(200).tags(Map.of("trace_line", "line-" + i)).build());
    }
    records.add(RequestRecord.builder().index(5).tags(Map.of("trace_line", "line-5"))
        .failure(Optional.of(Failure.of(ErrorCategory.CONNECT, "refused"))).build());
    records.add(RequestRecord.builder().index(6).httpStatus(200).warmup(true).tags(Map.of("trace_line", "line-6"))
        .build());

    ComponentTable table = ComponentTable.fromRecords(records, TWO, r -> new double[] {r.index(), 2 * r.index()},
        r -> r.tags().get("trace_line"));

    assertThat(table.size()).isEqualTo(5);
    assertThat(table.keys()).contains(List.of("line-0", "line-1", "line-2", "line-3", "line-4"));
    assertThat(table.column("phase2")).containsExactly(0, 2, 4, 6, 8);
    assertThat(table.skippedFailed()).isEqualTo(1);
    assertThat(table.skippedUnmeasured()).isEqualTo(1);
    assertThat(table.skippedWithoutTokens()).isZero();
    assertThat(table.skippedRecords()).isEqualTo(2);
    assertThat(table.toString()).isEqualTo("ComponentTable[5 requests × [phase1, phase2], keyed, 2 records skipped]");
    assertThatThrownBy(() -> ComponentTable.fromRecords(records, TWO, r -> new double[] {1}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("request 0 has 1 component values");
    assertThatThrownBy(() -> ComponentTable.fromRecords(records, TWO, r -> new double[] {1, 2}, r -> "same"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key 'same' is repeated");
  }

  @Test
  void phaseTablesCountTheRecordsTheySkipAndTheChangeReportsThem() {
    // Run A: four streamed successes, one success without a token-bearing chunk, one failure, one warmup.
    // Run B: the same four successes and one failure.
    List<RequestRecord> runA = new ArrayList<>();
    List<RequestRecord> runB = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      runA.add(streamed(i, 10 + i));
      runB.add(streamed(i, 20 + i));
    }
    runA.add(RequestRecord.builder().index(4).httpStatus(200).endOffsetNanos(5_000_000).build());
    runA.add(RequestRecord.builder().index(5).failure(Optional.of(Failure.of(ErrorCategory.CONNECT, "refused")))
        .build());
    runA.add(streamed(6, 10).toBuilder().warmup(true).build());
    runB.add(RequestRecord.builder().index(5).failure(Optional.of(Failure.of(ErrorCategory.CONNECT, "refused")))
        .build());

    ComponentTable a = ComponentTable.phases(runA, LatencyBasis.SERVICE_TIME,
        r -> "#" + r.index());
    ComponentTable b = ComponentTable.phases(runB, LatencyBasis.SERVICE_TIME,
        r -> "#" + r.index());

    assertThat(a.size()).isEqualTo(4);
    assertThat(a.skippedWithoutTokens()).isEqualTo(1);
    assertThat(a.skippedFailed()).isEqualTo(1);
    assertThat(a.skippedUnmeasured()).isEqualTo(1);
    assertThat(b.skippedRecords()).isEqualTo(1);
    PercentileChange change = ChangeDecomposition.builder().build().decompose(a, b);
    assertThat(change.skippedA()).isEqualTo(3);
    assertThat(change.skippedB()).isEqualTo(1);
    assertThat(change.toString()).contains("PAIRED over 4 requests, skipped 3 of A, 1 of B");
    // E2E 10..13 ms -> 20..23 ms: P99 (linear, 4 values) 12.97 -> 22.97.
    assertThat(change.change()).isCloseTo(10, within(1e-9));
    assertThatThrownBy(() -> ComponentTable.phases(runA.subList(4, 7),
        LatencyBasis.SERVICE_TIME))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no request to tabulate among 3 records: 1 warmup or cooldown, 1 failed, 1 without a"
            + " token-bearing chunk");
  }

  /** A successful record whose single content chunk arrives {@code e2eMs} after send. */
  private static RequestRecord streamed(long index, double e2eMs) {
    long nanos = Math.round(e2eMs * 1_000_000);
    return RequestRecord.builder().index(index).httpStatus(200)
        .chunks(ChunkTimeline.builder().add(nanos, ChunkKind.CONTENT, ChunkTimeline.UNKNOWN_TOKENS).build())
        .endOffsetNanos(nanos).build();
  }

  @Test
  void unknownFactorValuesNeedARowModelThatReadsThem() {
    // A tree-like model of latency from two factors: a missing (NaN) input length counts as a short prompt.
    TreeEnsemble model = TreeEnsemble.builder(List.of("input_tokens", "in_flight"))
        .addTree(TreeNode.split(0, 1000, TreeNode.leaf(100, 1), TreeNode.leaf(400, 1)))
        .addTree(TreeNode.split(1, 8, TreeNode.leaf(0, 1), TreeNode.leaf(50, 1)))
        .build();
    double[][] a = new double[100][];
    double[][] b = new double[100][];
    for (int i = 0; i < 100; i++) {
      a[i] = new double[] {i % 2 == 0 ? Double.NaN : 200, 4};
      // Run B: the two slowest-to-be requests get long prompts, and every request sees a busier server.
      b[i] = new double[] {i < 2 ? 4000 : Double.NaN, 16};
    }
    ComponentTable tableA = ComponentTable.of(List.of("input_tokens", "in_flight"), a);
    ComponentTable tableB = ComponentTable.of(List.of("input_tokens", "in_flight"), b);
    assertThat(tableA.hasMissingValues()).isTrue();

    assertThatThrownBy(() -> ChangeDecomposition.builder().coupling(Coupling.BY_RANK).build()
        .decompose(tableA, tableB)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown (NaN)").hasMessageContaining("row model");

    PercentileChange change = ChangeDecomposition.builder().coupling(Coupling.BY_RANK).model(model::predict).build()
        .decompose(tableA, tableB);
    // A: every prediction 100 -> P99 100. B: two of 100 predict 450, the rest 150 -> P99 = 450 (rank 98.01).
    // Only long prompts: 2 x 400 -> P99 400; only the busier server: 150. Shapley: input (300 + 300) / 2 = 300,
    // in_flight (50 + 50) / 2 = 50.
    assertThat(change.statisticA()).isEqualTo(100.0);
    assertThat(change.statisticB()).isEqualTo(450.0);
    assertThat(change.contribution("input_tokens")).isCloseTo(300, within(1e-9));
    assertThat(change.contribution("in_flight")).isCloseTo(50, within(1e-9));
  }

  @Test
  void rejectsBadInputWithSpecificMessages() {
    double[][] rows = {{1, 2}};
    assertThatThrownBy(() -> ComponentTable.of(TWO, new double[][] {{1, Double.POSITIVE_INFINITY}}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("row 0 component phase2 is Infinity");
    assertThatThrownBy(() -> ComponentTable.of(TWO, new double[0][]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one request");
    assertThatThrownBy(() -> ChangeDecomposition.builder().build()
        .decompose(ComponentTable.of(TWO, rows), ComponentTable.of(List.of("phase1", "other"), rows)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same components");
    assertThatThrownBy(() -> ChangeDecomposition.builder().model(row -> Double.NaN).build()
        .decompose(ComponentTable.of(TWO, rows), ComponentTable.of(TWO, rows)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("row model returned NaN");
    assertThatThrownBy(() -> ChangeDecomposition.builder().permutations(5))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 5");
    assertThatThrownBy(() -> ChangeDecomposition.builder().exactUpTo(21))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 21");
    assertThatThrownBy(() -> ChangeStatistic.percentile(99))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 99");
    assertThat(ChangeStatistic.percentile(0.999).name()).isEqualTo("p99.9");
    assertThat(ChangeStatistic.percentile(0.5).name()).isEqualTo("p50");
  }

  @Test
  void nullArgumentsAreNamedInTheirExceptions() {
    double[][] rows = {{1, 2}};
    assertThatThrownBy(() -> ChangeStatistic.of(null, v -> 0)).isInstanceOf(NullPointerException.class)
        .hasMessage("name");
    assertThatThrownBy(() -> ComponentTable.of(TWO, rows, java.util.Arrays.asList((String) null)))
        .isInstanceOf(NullPointerException.class).hasMessage("key of row 0 is null");
    assertThatThrownBy(() -> ComponentTable.of(java.util.Arrays.asList("phase1", null), rows))
        .isInstanceOf(NullPointerException.class).hasMessage("component name 1 is null");
    assertThatThrownBy(() -> ComponentTable.of(TWO, new double[][] {{1, 2}, null}))
        .isInstanceOf(NullPointerException.class).hasMessage("row 1 is null");
    assertThatThrownBy(() -> ComponentTable.of(TWO, rows, null)).isInstanceOf(NullPointerException.class)
        .hasMessage("keys");
  }

  @Test
  void percentileNamesHaveAtMostFourDecimalsLikeBlockStatistics() {
    assertThat(ChangeStatistic.percentile(1.0 / 3).name()).isEqualTo("p33.3333");
    assertThat(ChangeStatistic.percentile(0.99999).name()).isEqualTo("p99.999");
    assertThat(ChangeStatistic.percentile(0).name()).isEqualTo("p0");
    assertThat(ChangeStatistic.percentile(1).name()).isEqualTo("p100");
    assertThat(ChangeStatistic.percentile(0.99, QuantileMethod.NEAREST_RANK).name()).isEqualTo("p99");
    assertThat(ChangeStatistic.percentile(0.99).quantileMethod()).contains(QuantileMethod.LINEAR);
    assertThat(ChangeStatistic.mean().quantileMethod()).isEmpty();
  }

  @Test
  void nearestRankPercentilesTakeTheFastPathAndMatchSortingEveryCoalition() {
    // 250 requests: P90 by nearest rank is order statistic 225 (index 224), the linear one interpolates at
    // 224.1, so the two methods differ and the fast path must honour the one asked for.
    List<String> names = List.of("c0", "c1", "c2", "c3");
    double[][] rowsA = randomRows(250, 4, 21);
    double[][] rowsB = randomRows(250, 4, 22);
    ChangeStatistic p90 = ChangeStatistic.percentile(0.9, QuantileMethod.NEAREST_RANK);
    List<String> keys = new ArrayList<>();
    for (int r = 0; r < 250; r++) {
      keys.add("k" + r);
    }
    ComponentTable a = ComponentTable.of(names, rowsA, keys);
    ComponentTable b = ComponentTable.of(names, rowsB, keys);
    RowModel model = row -> row[0] * row[1] / 10 + row[2] + row[3];

    for (Optional<RowModel> m : List.of(Optional.<RowModel>empty(), Optional.of(model))) {
      ChangeDecomposition.Builder builder = ChangeDecomposition.builder().statistic(p90);
      m.ifPresent(builder::model);
      PercentileChange why = builder.build().decompose(a, b);
      ShapleyValues reference = Shapley.exact(CoalitionGame.of(names,
          s -> sortedStatistic(rowsA, rowsB, s, m, p90)));

      assertThat(why.statistic()).isEqualTo("p90");
      assertThat(why.statisticA()).isEqualTo(QuantileMethod.NEAREST_RANK.quantile(sorted(outcomes(rowsA, m)), 0.9));
      assertThat(why.statisticA()).isNotEqualTo(QuantileMethod.LINEAR.quantile(sorted(outcomes(rowsA, m)), 0.9));
      assertThat(why.contributions()).containsExactly(reference.values(), within(1e-9));
    }
  }

  @Test
  void aRowModelThatWritesIntoItsRowDoesNotCorruptLaterCoalitions() {
    double[][] rowsA = randomRows(300, 3, 11);
    double[][] rowsB = randomRows(300, 3, 12);
    List<String> names = List.of("c0", "c1", "c2");
    List<String> keys = new ArrayList<>();
    for (int r = 0; r < 300; r++) {
      keys.add("k" + r);
    }
    ComponentTable a = ComponentTable.of(names, rowsA, keys);
    ComponentTable b = ComponentTable.of(names, rowsB, keys);
    RowModel model = row -> row[0] + 2 * row[1] + row[2] * row[2] / 100;
    RowModel scribbler = row -> {
      double y = model.predict(row);
      java.util.Arrays.fill(row, -1e6);
      return y;
    };

    PercentileChange clean = ChangeDecomposition.builder().model(model).build().decompose(a, b);
    PercentileChange scribbled = ChangeDecomposition.builder().model(scribbler).build().decompose(a, b);

    assertThat(scribbled.contributions()).containsExactly(clean.contributions());
    assertThat(scribbled.forwardSubstitution()).containsExactly(clean.forwardSubstitution());
    assertThat(scribbled.statisticB()).isEqualTo(clean.statisticB());
  }

  @Test
  void theGameAnswersCoalitionsInAnyOrderAsAFromScratchComputationWould() {
    // Shapley.kernel and custom estimators ask for coalitions in random order, jumping many components at once
    // and coming back to earlier ones; the game's incremental state (running sums, tail threshold, model rows)
    // must give every coalition the value a fresh computation gives.
    int k = 6;
    List<String> names = List.of("c0", "c1", "c2", "c3", "c4", "c5");
    double[][] rowsA = randomRows(400, k, 31);
    double[][] rowsB = randomRows(400, k, 32);
    List<String> keys = new ArrayList<>();
    for (int r = 0; r < 400; r++) {
      keys.add("k" + r);
    }
    ComponentTable a = ComponentTable.of(names, rowsA, keys);
    ComponentTable b = ComponentTable.of(names, rowsB, keys);
    RowModel model = row -> Math.max(row[0], row[1]) + row[2] * row[3] / 20 + row[4] + row[5];
    SplittableRandom random = new SplittableRandom(33);

    for (ChangeStatistic statistic : List.of(ChangeStatistic.percentile(0.99), ChangeStatistic.percentile(0.5),
        ChangeStatistic.mean())) {
      for (Optional<RowModel> m : List.of(Optional.<RowModel>empty(), Optional.of(model))) {
        ChangeDecomposition.Builder builder = ChangeDecomposition.builder().statistic(statistic);
        m.ifPresent(builder::model);
        CoalitionGame game = builder.build().game(a, b);
        for (int q = 0; q < 300; q++) {
          long coalition = random.nextLong(1L << k);
          double expected = sortedStatistic(rowsA, rowsB, coalition, m, statistic);
          assertThat(game.value(coalition)).as("%s %s coalition %s", statistic, m.isPresent() ? "model" : "sum",
              Long.toBinaryString(coalition)).isCloseTo(expected, within(1e-9 * Math.max(1, Math.abs(expected))));
        }
      }
    }
  }

  @Test
  void droppingUnmatchedKeysWhileCouplingByRankIsRejectedRatherThanIgnored() {
    assertThatThrownBy(() -> ChangeDecomposition.builder().coupling(Coupling.BY_RANK).dropUnmatched(true).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("BY_RANK couples every request");
    assertThat(ChangeDecomposition.builder().coupling(Coupling.PAIRED).dropUnmatched(true).build()).isNotNull();
    assertThat(ChangeDecomposition.builder().coupling(Coupling.BY_RANK).dropUnmatched(false).build()).isNotNull();
  }

  @Test
  void tablesWithMoreComponentsThanACoalitionHoldsAreRejected() {
    List<String> names = new ArrayList<>();
    for (int j = 0; j < 65; j++) {
      names.add("c" + j);
    }
    double[][] rows = {new double[65]};

    assertThatThrownBy(() -> ComponentTable.of(names, rows)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 63 components").hasMessageContaining("was 65");
    double[][] narrower = {new double[63]};
    PercentileChange most = ChangeDecomposition.builder().permutations(4).build()
        .decompose(ComponentTable.of(names.subList(0, 63), narrower),
            ComponentTable.of(names.subList(0, 63), narrower));
    assertThat(most.components()).hasSize(63);
    assertThat(most.change()).isZero();
  }

  /** 99 requests of 1 + 1 ms and two tail requests, in shuffled row order when {@code shuffle}. */
  private static ComponentTable twoPhaseRun(double[] tail1, double[] tail2, boolean shuffle) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 101; i++) {
      order.add(i);
    }
    if (shuffle) {
      Collections.shuffle(order, new java.util.Random(5));
    }
    double[][] rows = new double[101][];
    List<String> keys = new ArrayList<>();
    for (int i : order) {
      rows[keys.size()] = i == 0 ? tail1.clone() : i == 1 ? tail2.clone() : new double[] {1, 1};
      keys.add("line-" + i);
    }
    return ComponentTable.of(TWO, rows, keys);
  }

  private static ComponentTable swapColumns(ComponentTable t) {
    double[][] rows = new double[t.size()][];
    for (int r = 0; r < t.size(); r++) {
      rows[r] = new double[] {t.value(r, 1), t.value(r, 0)};
    }
    return ComponentTable.of(List.of(t.components().get(1), t.components().get(0)), rows, t.keys().orElseThrow());
  }

  /** Lognormal components with a few large outliers, like phase latencies in ms. */
  static double[][] randomRows(int n, int k, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[][] rows = new double[n][k];
    for (double[] row : rows) {
      for (int j = 0; j < k; j++) {
        double scale = 5 + 10 * j;
        row[j] = scale * Math.exp(0.6 * gaussian(random)) * (random.nextDouble() < 0.01 ? 8 : 1);
      }
    }
    return rows;
  }

  private static double gaussian(SplittableRandom random) {
    return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
  }

  /**
   * The statistic of the outcomes when the components in {@code coalition} take run B's values, computed from
   * scratch: rows built afresh, outcomes summed (or predicted) afresh, sorted by the statistic itself.
   */
  private static double sortedStatistic(double[][] rowsA, double[][] rowsB, long coalition, Optional<RowModel> model,
      ChangeStatistic statistic) {
    double[][] mixed = new double[rowsA.length][];
    for (int r = 0; r < rowsA.length; r++) {
      mixed[r] = rowsA[r].clone();
      for (int j = 0; j < mixed[r].length; j++) {
        if ((coalition & (1L << j)) != 0) {
          mixed[r][j] = rowsB[r][j];
        }
      }
    }
    return statistic.of(outcomes(mixed, model));
  }

  private static double[] outcomes(double[][] rows, Optional<RowModel> model) {
    if (model.isEmpty()) {
      return sums(rows);
    }
    double[] y = new double[rows.length];
    for (int r = 0; r < rows.length; r++) {
      y[r] = model.get().predict(rows[r].clone());
    }
    return y;
  }

  private static double[] sorted(double[] values) {
    double[] s = values.clone();
    java.util.Arrays.sort(s);
    return s;
  }

  private static double[] sums(double[][] rows) {
    double[] y = new double[rows.length];
    for (int r = 0; r < rows.length; r++) {
      for (double v : rows[r]) {
        y[r] += v;
      }
    }
    return y;
  }
}
