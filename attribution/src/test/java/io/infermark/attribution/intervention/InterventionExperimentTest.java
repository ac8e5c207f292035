package io.infermark.attribution.intervention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.within;

import io.infermark.attribution.shapley.CoalitionGame;
import io.infermark.attribution.shapley.Shapley;
import io.infermark.attribution.shapley.ShapleyValues;
import io.infermark.metrics.LatencyMetric;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Intervention experiments with synthetic block runners: the configuration is a small record of
 * knobs, and each block's statistic is computed from it (and from the block's position, to model
 * drift) without running anything.
 */
class InterventionExperimentTest {

  /** Two knobs of a pretend server. */
  record Knobs(int batch, int ttftMs) {
    Knobs batch(int b) {
      return new Knobs(b, ttftMs);
    }

    Knobs ttft(int t) {
      return new Knobs(batch, t);
    }
  }

  private static final Factor<Knobs> TTFT = Factor.of("ttft", k -> k.ttft(10), k -> k.ttft(40));
  private static final Factor<Knobs> BATCH = Factor.of("batch", k -> k.batch(8), k -> k.batch(64));

  private static String levels(List<Cell> order) {
    return order.stream().map(Cell::levels).collect(Collectors.joining(" "));
  }

  @Test
  void oneFactorRunsInAbbaOrder() {
    InterventionExperiment<Knobs> e = InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT)
        .runner(b -> 0).repetitions(3).build();

    assertThat(levels(e.order())).isEqualTo("A B B A A B B A A B B A");
  }

  @Test
  void twoFactorsRunEachRepetitionInStandardOrderThenMirrored() {
    InterventionExperiment<Knobs> e = InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT).factor(BATCH)
        .runner(b -> 0).repetitions(2).build();

    // First letter: ttft (bit 0, changes fastest); second: batch.
    assertThat(levels(e.order())).isEqualTo("AA BA AB BB BB AB BA AA AA BA AB BB BB AB BA AA");
  }

  @Test
  void blocksRunWithTheirCellsSettingsApplied() {
    List<String> seen = new ArrayList<>();
    InterventionExperiment.builder(new Knobs(0, 0)).factor(TTFT).factor(BATCH).repetitions(2)
        .runner(b -> {
          seen.add(b.position() + ":" + b.repetition() + ":" + b.configuration());
          return 1;
        }).build().run();

    assertThat(seen).hasSize(16).startsWith("0:0:Knobs[batch=8, ttftMs=10]", "1:0:Knobs[batch=8, ttftMs=40]",
        "2:0:Knobs[batch=64, ttftMs=10]", "3:0:Knobs[batch=64, ttftMs=40]", "4:0:Knobs[batch=64, ttftMs=40]");
    assertThat(seen.get(8)).isEqualTo("8:1:Knobs[batch=8, ttftMs=10]");
  }

  @Test
  void sideEffectFactorsRunTheirSettingBeforeEveryBlock() {
    List<String> admin = new ArrayList<>();
    InterventionExperiment.builder("config")
        .factor(Factor.sideEffect("flag", () -> admin.add("off"), () -> admin.add("on")))
        .runner(b -> admin.size()).repetitions(2).build().run();

    assertThat(admin).containsExactly("off", "on", "on", "off", "off", "on", "on", "off");
  }

  @Test
  void linearDriftCancelsFromTheAbbaEstimate() {
    // B adds 30 ms; the system also slows by 2.5 ms every block. ABBA pairs cancel the drift exactly.
    InterventionResult r = InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT).repetitions(4)
        .runner(b -> 100 + b.configuration().ttftMs() + 2.5 * b.position()).build().run();

    assertThat(r.change().differences()).containsExactly(new double[] {30, 30, 30, 30}, within(1e-9));
    assertThat(r.change().estimate()).isCloseTo(30, within(1e-9));
    assertThat(r.shapley().value("ttft")).isCloseTo(30, within(1e-9));
    assertThat(r.effects()).containsOnlyKeys("ttft");
    assertThat(r.effects().get("ttft")).isCloseTo(30, within(1e-9));
  }

  @Test
  void shapleyOverTwoByTwoIsTheAverageOfBothOrders() {
    // Cell values: AA 100, BA (ttft at B) 130, AB (batch at B) 110, BB 160, plus drift that cancels.
    Map<String, Double> cell = Map.of("AA", 100.0, "BA", 130.0, "AB", 110.0, "BB", 160.0);
    InterventionResult r = InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT).factor(BATCH)
        .repetitions(3).runner(b -> cell.get(b.cell().levels()) - 0.75 * b.position()).build().run();

    // ttft first: ttft +30, then batch +30. batch first: batch +10, then ttft +50.
    double ttft = (30 + 50) / 2.0;
    double batch = (30 + 10) / 2.0;
    assertThat(r.shapley().value("ttft")).isCloseTo(ttft, within(1e-9));
    assertThat(r.shapley().value("batch")).isCloseTo(batch, within(1e-9));
    assertThat(r.shapley().efficiencyGap()).isCloseTo(0, within(1e-9));
    assertThat(r.change().estimate()).isCloseTo(60, within(1e-9));
    assertThat(r.cellMeans()).containsExactly(new double[] {100 - 0.75 * 3.5 - 0.75 * 8, 130 - 0.75 * 11.5,
        110 - 0.75 * 11.5, 160 - 0.75 * 11.5}, within(1e-9));
    // Yates: main effects ((130 + 160) - (100 + 110)) / 2 and ((110 + 160) - (100 + 130)) / 2; interaction
    // (160 - 110 - 130 + 100) / 2.
    assertThat(r.effects()).containsExactly(entry("ttft", 40.0), entry("batch", 20.0), entry("ttft:batch", 10.0));
    assertThat(r.attribution("ttft").estimate()).isCloseTo(40, within(1e-9));
  }

  @Test
  void threeFactorShapleySplitsAnInteractionEquallyAndMatchesShapleyExact() {
    // v = 10 [a at B] + 20 [b at B] + 6 [b and c at B]: Shapley a 10, b 23, c 3.
    Factor<Integer> a = Factor.of("a", x -> x, x -> x | 1);
    Factor<Integer> b = Factor.of("b", x -> x, x -> x | 2);
    Factor<Integer> c = Factor.of("c", x -> x, x -> x | 4);
    InterventionResult r = InterventionExperiment.builder(0).factor(a).factor(b).factor(c).repetitions(2)
        .runner(blk -> {
          int s = blk.configuration();
          return 10 * (s & 1) + 20 * (s >> 1 & 1) + 6 * ((s & 6) == 6 ? 1 : 0);
        }).build().run();

    ShapleyValues phi = r.shapley();
    assertThat(phi.values()).containsExactly(new double[] {10, 23, 3}, within(1e-9));
    double[] means = r.cellMeans();
    assertThat(phi.values()).containsExactly(Shapley.exact(CoalitionGame.of(List.of("a", "b", "c"),
        s -> means[(int) s])).values(), within(1e-12));
    // Main effects: a 10, b 20 + 6/2, c 6/2; the b:c interaction contrast is 6/2; the others vanish.
    assertThat(r.effects()).containsOnlyKeys("a", "b", "c", "a:b", "a:c", "b:c", "a:b:c");
    assertThat(r.effects().get("a")).isCloseTo(10, within(1e-9));
    assertThat(r.effects().get("b")).isCloseTo(23, within(1e-9));
    assertThat(r.effects().get("c")).isCloseTo(3, within(1e-9));
    assertThat(r.effects().get("b:c")).isCloseTo(3, within(1e-9));
    assertThat(r.effects().get("a:b")).isCloseTo(0, within(1e-9));
    assertThat(r.effects().get("a:b:c")).isCloseTo(0, within(1e-9));
  }

  @Test
  void signedRankTestUsesOneDifferencePerRepetition() {
    // B - A per repetition: 1, -2, 3, 4, -5, 6, 7, 8. W+ = 1+3+4+6+7+8 = 29; W- = 7, and 19 of the
    // 256 sign patterns have W- <= 7, so the exact two-sided p is 2 * 19 / 256 = 0.1484375.
    double[] d = {1, -2, 3, 4, -5, 6, 7, 8};
    InterventionResult r = InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT).repetitions(8)
        .runner(b -> b.cell().level(0) == Level.B ? 50 + d[b.repetition()] : 50).build().run();

    assertThat(r.change().differences()).containsExactly(d);
    assertThat(r.change().estimate()).isEqualTo(2.75);
    assertThat(r.change().signedRankStatistic()).isEqualTo(29);
    assertThat(r.change().signedRankPValue()).isCloseTo(0.1484375, within(1e-12));
  }

  @Test
  void sixPositiveDifferencesReachTheSmallestExactPValue() {
    ChangeEstimate e = ChangeEstimate.of(new double[] {1, 2, 3, 4, 5, 6}, 0.95, 1000, 0, IntervalMethod.PERCENTILE);

    assertThat(e.signedRankPValue()).isEqualTo(2.0 / 64);
    assertThat(e.signedRankStatistic()).isEqualTo(21);
    assertThat(e.excludesZero()).isTrue();
  }

  @Test
  void allZeroDifferencesHavePValueOne() {
    ChangeEstimate e = ChangeEstimate.of(new double[] {0, 0, 0}, 0.95, 1000, 0, IntervalMethod.BCA);

    assertThat(e.signedRankPValue()).isEqualTo(1.0);
    assertThat(e.estimate()).isZero();
    assertThat(e.excludesZero()).isFalse();
  }

  @Test
  void noisyEffectIsFoundWithAnIntervalAroundIt() {
    // Effect +20 with noise sd 4 per block and drift; ten repetitions. The 95% BCa interval must hold 20
    // and exclude 0 (fixed seeds: a regression check, not a coverage claim).
    SplittableRandom noise = new SplittableRandom(5);
    InterventionResult r = InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT).repetitions(10).seed(3)
        .runner(b -> 200 + (b.configuration().ttftMs() == 40 ? 20 : 0) + 0.3 * b.position()
            + 4 * (noise.nextDouble() - 0.5) * Math.sqrt(12))
        .build().run();

    ChangeEstimate c = r.change();
    assertThat(c.lower()).isLessThan(20).isGreaterThan(0);
    assertThat(c.upper()).isGreaterThan(20);
    assertThat(c.signedRankPValue()).isEqualTo(2.0 / 1024);
    assertThat(c.intervalMethod()).isEqualTo(IntervalMethod.BCA);
  }

  @Test
  void nonFiniteBlockStatisticIsReportedWithItsBlock() {
    InterventionExperiment<Knobs> e = InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT)
        .runner(b -> b.position() == 2 ? Double.NaN : 1).build();

    assertThatThrownBy(e::run).isInstanceOf(IllegalStateException.class)
        .hasMessage("block 2 (Cell[ttft=B], repetition 0) measured NaN; a block statistic must be finite");
  }

  @Test
  void anyExceptionFromABlockIsReportedWithItsBlockAndKeptAsTheCause() {
    IllegalArgumentException boom = new IllegalArgumentException("no such model 'x'");
    InterventionExperiment<Knobs> e = InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT)
        .runner(b -> {
          if (b.position() == 5) {
            throw boom;
          }
          return 1;
        }).build();

    assertThatThrownBy(e::run).isInstanceOf(IllegalStateException.class).hasCause(boom)
        .hasMessage("block 5 (Cell[ttft=B], repetition 1) failed: IllegalArgumentException: no such model 'x'");

    InterventionExperiment<Knobs> failingFactor = InterventionExperiment.builder(new Knobs(8, 10))
        .factor(Factor.of("broken", k -> k, k -> {
          throw new UnsupportedOperationException();
        })).runner(b -> 1).build();
    assertThatThrownBy(failingFactor::run).isInstanceOf(IllegalStateException.class)
        .hasCauseInstanceOf(UnsupportedOperationException.class)
        .hasMessage("block 1 (Cell[broken=B], repetition 0) failed: UnsupportedOperationException");
  }

  @Test
  void badConfigurationIsRejected() {
    assertThatThrownBy(() -> InterventionExperiment.builder(1).runner(b -> 0).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("needs at least one factor");
    assertThatThrownBy(() -> InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT).factor(TTFT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'ttft' was already added");
    assertThatThrownBy(() -> InterventionExperiment.builder(1).repetitions(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("repetitions must be at least 2 (the bootstrap resamples them), was 1");
    assertThatThrownBy(() -> InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no way to run a block");
    assertThatThrownBy(() -> Factor.of(" ", x -> x)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be blank");
    assertThatThrownBy(() -> InterventionExperiment.builder(1).confidence(95))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confidence must be in (0, 1), was 95.0");
  }

  @Test
  void aStatisticSetTogetherWithARunnerIsRejectedRatherThanIgnored() {
    // Before, the statistic was silently dropped and the result labelled "block statistic".
    assertThatThrownBy(() -> InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT)
        .statistic(BlockStatistic.mean(LatencyMetric.TTFT)).runner(b -> 1).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("statistic(mean ttft_ms)")
        .hasMessageContaining("runner(name, runner)");
    assertThatThrownBy(() -> InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT).runner(b -> 1)
        .statistic(BlockStatistic.p99E2e()).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("would ignore it");
    assertThatThrownBy(() -> InterventionExperiment.builder(1).runner(" ", b -> 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be blank");
  }

  @Test
  void aNamedRunnerLabelsTheResultWithItsStatistic() {
    InterventionResult named = InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT).repetitions(2)
        .runner("p99 e2e_ms (model)", b -> b.configuration().ttftMs()).build().run();
    InterventionResult unnamed = InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT).repetitions(2)
        .runner(b -> b.configuration().ttftMs()).build().run();

    assertThat(named.statistic()).isEqualTo("p99 e2e_ms (model)");
    assertThat(named.toMarkdown()).contains("p99 e2e_ms (model) change");
    assertThat(unnamed.statistic()).isEqualTo(InterventionExperiment.DEFAULT_RUNNER_STATISTIC);
  }

  @Test
  void toStringsAndTableSummariseTheResult() {
    Map<String, Double> cell = Map.of("AA", 100.0, "BA", 130.0, "AB", 110.0, "BB", 160.0);
    InterventionResult r = InterventionExperiment.builder(new Knobs(8, 10)).factor(TTFT).factor(BATCH)
        .repetitions(2).runner(b -> cell.get(b.cell().levels())).build().run();

    // Two tied differences (60, 60): the exact conditional p-value is 2 * P(W+ >= 3) = 2 * 1/4 = 0.5.
    assertThat(r.toString()).isEqualTo("InterventionResult[block statistic [ttft, batch] 2 repetitions x 8 blocks, "
        + "all-A 100.0 -> all-B 160.0, change +60.00 [60.00, 60.00] p=0.500, ttft +40.00, batch +20.00]");
    assertThat(r.toMarkdown()).isEqualTo(String.join("\n",
        "|                   | block statistic change | CI low | CI high | signed-rank p |",
        "|-------------------|-----------------------:|-------:|--------:|--------------:|",
        "| all A -> all B    |                +60.000 | 60.000 |  60.000 |        0.5000 |",
        "|   ttft (Shapley)  |                +40.000 | 40.000 |  40.000 |        0.5000 |",
        "|   batch (Shapley) |                +20.000 | 20.000 |  20.000 |        0.5000 |",
        ""));
  }
}
