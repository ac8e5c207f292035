package io.infermark.attribution.knee;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.HealthVerdict;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.sweep.SweepPoint;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.report.LoadCurvePoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SweepKneesTest {

  // P99 TTFT per rate: slopes 5, 5, 42.5, 100, 550 ms per req/s.
  private static final double[] RATES = {1, 2, 4, 6, 8, 10};
  private static final double[] P99_TTFT = {100, 105, 115, 200, 400, 1500};

  private static List<SweepPoint<Double>> rateSweep() {
    List<SweepPoint<Double>> points = new ArrayList<>();
    for (int i = 0; i < RATES.length; i++) {
      points.add(new SweepPoint<>(RATES[i], SweepFixtures.run(LoadProfile.poisson(RATES[i]), P99_TTFT[i])));
    }
    return points;
  }

  @Test
  void slopeRuleFindsTheFirstSegmentSteeperThan120MsPerRequestPerSecond() {
    SlopeKnee k = SlopeThreshold.defaults().find(RATES, P99_TTFT).orElseThrow();

    // 8 -> 10 req/s: (1500 - 400) / 2 = 550 ms per req/s, the first above 120 (6 -> 8 is 100).
    assertThat(k.index()).isEqualTo(5);
    assertThat(k.fromLoad()).isEqualTo(8);
    assertThat(k.toLoad()).isEqualTo(10);
    assertThat(k.slope()).isEqualTo(550);
    assertThat(SlopeThreshold.of(40).find(RATES, P99_TTFT).orElseThrow().toLoad()).isEqualTo(6);
    assertThat(SlopeThreshold.of(550).find(RATES, P99_TTFT)).isEmpty();
    assertThat(k.toString()).isEqualTo("SlopeKnee[8.0 -> 10.0: 400.000 -> 1500.000 ms, 550.000 ms per unit > 120.000]");
  }

  @Test
  void slopeRuleRejectsUnsortedLoad() {
    assertThatThrownBy(() -> SlopeThreshold.defaults().find(new double[] {2, 1}, new double[] {1, 2}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strictly increasing");
    assertThatThrownBy(() -> SlopeThreshold.of(0)).hasMessageContaining("was 0.0");
  }

  @Test
  void rateSweepNamesTheRateAtEachKnee() {
    SweepKnees knees = SweepKnees.ofSweep(rateSweep(), KneeAxis.OFFERED_LOAD);

    // kneed (convex, increasing, S=1) on these six points: knee at 8 (checked with the reference code).
    assertThat(knees.metric()).isEqualTo(LatencyMetric.TTFT);
    assertThat(knees.latenciesMillis()).containsExactly(P99_TTFT, within(1e-9));
    assertThat(knees.kneedle().knee()).hasValue(8);
    assertThat(knees.kneedleLabel()).contains("8.000 req/s");
    assertThat(knees.slopeLabel()).contains("10.00 req/s");
    assertThat(knees.lastAcceptableLabel()).contains("8.000 req/s");
    assertThat(knees.toString()).isEqualTo("SweepKnees[TTFT p99 against offered load over 6 levels: kneedle 8.000 req/s (400.000 ms), "
        + "slope 8.000 req/s -> 10.00 req/s (550.0 ms per unit > 120.0)]");
  }

  @Test
  void otherMetricAndThresholdChangeTheCurve() {
    // E2E is twice TTFT in these runs, so its slopes double (10, 10, 85, 200, 1100): 40 is first exceeded on 4 -> 6.
    SweepKnees e2e = SweepKnees.ofSweep(rateSweep(), LatencyMetric.E2E, 0.5, Kneedle.latencyCurve(),
        SlopeThreshold.of(40), KneeAxis.OFFERED_LOAD);

    assertThat(e2e.latenciesMillis()[3]).isCloseTo(400, within(1e-9));
    assertThat(e2e.slopeLabel()).contains("6.000 req/s");
    assertThat(e2e.kneedleLabel()).contains("8.000 req/s");
    assertThat(e2e.toString()).startsWith("SweepKnees[E2E p50 against offered load over 6 levels");
  }

  /**
   * Seed 002 §3.2's vLLM row: a concurrency sweep whose measured QPS stops at 184 with P99 latency 1,247 ms (the
   * seed's "P99延迟", end to end), the knee being where Δlatency/ΔQPS first exceeds 120 ms per QPS. Concurrency
   * 8, 16, 32, 64, 128 achieve 60, 110, 160, 180, 184 req/s at P99 E2E 300, 340, 420, 700, 1247 ms: slopes per
   * completed req/s 40/50 = 0.8, 80/50 = 1.6, 280/20 = 14, 547/4 = 136.75 > 120. The knee is concurrency 128 (184
   * QPS, 1,247 ms). Per stream the same curve's steepest slope is 547/64 = 8.5 ms: against the offered
   * concurrency the rule never fires. In these runs TTFT is half of E2E, so the default P99 TTFT curve's
   * steepest slope is 273.5/4 = 68.4 ms per QPS: on TTFT the seed's knee is not found, which is why seed 002's
   * knee is read on E2E.
   */
  @Test
  void theKneeIsWhereLatencyPerAchievedQpsFirstExceeds120MsAsSeed002Defines() {
    int[] streams = {8, 16, 32, 64, 128};
    double[] qps = {60, 110, 160, 180, 184};
    double[] p99 = {300, 340, 420, 700, 1247};
    List<SweepPoint<Integer>> points = new ArrayList<>();
    for (int i = 0; i < streams.length; i++) {
      // The fixture's E2E is twice its TTFT: the seed's E2E row is p99 / 2 of TTFT.
      points.add(new SweepPoint<>(streams[i], SweepFixtures.run(LoadProfile.concurrency(streams[i]), p99[i] / 2,
          qps[i])));
    }

    SweepKnees knees = SweepKnees.seed002(points);

    assertThat(knees.metric()).isEqualTo(LatencyMetric.E2E);
    assertThat(knees.percentile()).isEqualTo(0.99);
    assertThat(knees.axis()).isEqualTo(KneeAxis.ACHIEVED_THROUGHPUT);
    assertThat(knees.latenciesMillis()).containsExactly(p99, within(1e-6));
    assertThat(knees.achievedThroughputs()).containsExactly(qps, within(1e-6));
    assertThat(knees.offeredLoads()).containsExactly(8, 16, 32, 64, 128);
    assertThat(knees.loads()).containsExactly(qps, within(1e-6));
    SlopeKnee k = knees.slope().orElseThrow();
    assertThat(k.fromLoad()).isCloseTo(180, within(1e-6));
    assertThat(k.toLoad()).isCloseTo(184, within(1e-6));
    assertThat(k.toLatencyMillis()).isCloseTo(1247, within(1e-6));
    assertThat(k.slope()).isCloseTo(136.75, within(1e-3));
    assertThat(knees.slopeLabel()).contains("concurrency 128");
    assertThat(knees.lastAcceptableLabel()).contains("concurrency 64");
    assertThat(knees.toString()).contains("E2E p99 against achieved req/s",
        "slope concurrency 64 -> concurrency 128 (136.7 ms per req/s > 120.0)");

    assertThat(SweepKnees.ofSweep(points, LatencyMetric.E2E, 0.99, Kneedle.latencyCurve(), SlopeThreshold.defaults(),
        KneeAxis.OFFERED_LOAD).slope()).isEmpty();
    SweepKnees onTtft = SweepKnees.ofSweep(points);
    assertThat(onTtft.metric()).isEqualTo(LatencyMetric.TTFT);
    assertThat(onTtft.latenciesMillis()[4]).isCloseTo(623.5, within(1e-6));
    assertThat(onTtft.slope()).isEmpty();
  }

  @Test
  void aLevelWhoseThroughputDidNotRiseWhileLatencyDidIsTheKneeAndKneedleStopsBeforeIt() {
    // Rates 1..10 offered; the server delivers 1, 2, 4, 6, 7 then 6.5 req/s: past 8 req/s it is saturated.
    double[] achieved = {1, 2, 4, 6, 7, 6.5};
    List<SweepPoint<Double>> points = new ArrayList<>();
    for (int i = 0; i < RATES.length; i++) {
      points.add(new SweepPoint<>(RATES[i], SweepFixtures.run(LoadProfile.poisson(RATES[i]), P99_TTFT[i], achieved[i])));
    }

    // Slopes per achieved req/s: 5, 5, 42.5, 200 (6 -> 7 req/s, offered 6 -> 8): the knee is offered 8 req/s,
    // where against the offered rate (100 ms per req/s there) it was 10.
    SweepKnees knees = SweepKnees.ofSweep(points);
    assertThat(knees.slopeLabel()).contains("8.000 req/s");
    assertThat(knees.slope().orElseThrow().slope()).isCloseTo(200, within(1e-3));
    assertThat(SweepKnees.ofSweep(points, KneeAxis.OFFERED_LOAD).slopeLabel()).contains("10.00 req/s");
    // Kneedle sees only the levels that delivered more than every lower one: not 10 req/s (6.5 < 7).
    assertThat(knees.kneedleLabels()).containsExactly("1.000 req/s", "2.000 req/s", "4.000 req/s", "6.000 req/s",
        "8.000 req/s");

    // With a threshold above 200 the first too-steep segment is 8 -> 10 req/s: throughput fell 7 -> 6.5 while
    // P99 rose 400 -> 1500 ms, an infinite slope.
    SweepKnees stalled = SweepKnees.ofSweep(points, LatencyMetric.TTFT, 0.99, Kneedle.latencyCurve(),
        SlopeThreshold.of(500));
    assertThat(stalled.slope().orElseThrow().slope()).isInfinite();
    assertThat(stalled.slopeLabel()).contains("10.00 req/s");
    assertThat(stalled.toString()).contains("slope 8.000 req/s -> 10.00 req/s (throughput did not rise: 7.0 -> 6.5 req/s)");
  }

  @Test
  void slopeAlongTheOfferedOrderTreatsAStallWithRisingLatencyAsInfinitelySteep() {
    SlopeThreshold rule = SlopeThreshold.defaults();
    assertThat(rule.findAlong(new double[] {10, 20, 20}, new double[] {100, 110, 111}).orElseThrow().index())
        .isEqualTo(2);
    assertThat(rule.findAlong(new double[] {10, 20, 19}, new double[] {100, 110, 105})).isEmpty(); // neither rose
    assertThat(rule.findAlong(new double[] {10, 20, 30}, new double[] {100, 110, 1311}).orElseThrow().slope())
        .isCloseTo(120.1, within(1e-9));
    assertThat(rule.findAlong(new double[] {10, 20, 30}, new double[] {100, 110, 1310})).isEmpty(); // 120: not above
    assertThatThrownBy(() -> rule.findAlong(new double[] {1, Double.NaN}, new double[] {1, 2}))
        .hasMessageContaining("must be finite");
  }

  @Test
  void concurrencySweepIsSortedAndSkipsLevelsWithoutValues() {
    // Given out of order, with one level where every request failed.
    List<SweepPoint<Integer>> points = List.of(
        new SweepPoint<>(8, SweepFixtures.run(LoadProfile.concurrency(8), 200)),
        new SweepPoint<>(1, SweepFixtures.run(LoadProfile.concurrency(1), 100)),
        new SweepPoint<>(32, SweepFixtures.failedRun(LoadProfile.concurrency(32))),
        new SweepPoint<>(4, SweepFixtures.run(LoadProfile.concurrency(4), 115)),
        new SweepPoint<>(2, SweepFixtures.run(LoadProfile.concurrency(2), 105)));

    SweepKnees knees = SweepKnees.ofSweep(points, KneeAxis.OFFERED_LOAD);

    assertThat(knees.labels()).containsExactly("concurrency 1", "concurrency 2", "concurrency 4", "concurrency 8");
    assertThat(knees.skippedLabels()).containsExactly("concurrency 32");
    // kneed (convex, increasing) on x = [1, 2, 4, 8], y = [100, 105, 115, 200]: knee at 4.
    assertThat(knees.kneedleLabel()).contains("concurrency 4");
    assertThat(knees.slope()).isEmpty(); // steepest is (200 - 115) / 4 = 21.25 ms per stream
    // ... but at 32 every request failed, after 8 was fine: saturation is the slope rule's knee.
    assertThat(knees.saturatedLabel()).contains("concurrency 32");
    assertThat(knees.slopeKneeIsSaturation()).isTrue();
    assertThat(knees.slopeLabel()).contains("concurrency 32");
    assertThat(knees.lastAcceptableLabel()).contains("concurrency 8");
    assertThat(knees.toString()).endsWith("slope concurrency 8 -> concurrency 32 (every request failed), "
        + "saturated at concurrency 32, skipped [concurrency 32]]");
  }

  @Test
  void aSteepSegmentBelowTheSaturatedLevelIsStillTheSlopeKnee() {
    // 1 -> 2 -> 4 ok, 4 -> 8 at (1000 - 115) / 4 = 221 ms per stream, then 16 fails completely.
    List<SweepPoint<Integer>> points = List.of(
        new SweepPoint<>(1, SweepFixtures.run(LoadProfile.concurrency(1), 100)),
        new SweepPoint<>(2, SweepFixtures.run(LoadProfile.concurrency(2), 105)),
        new SweepPoint<>(4, SweepFixtures.run(LoadProfile.concurrency(4), 115)),
        new SweepPoint<>(8, SweepFixtures.run(LoadProfile.concurrency(8), 1000)),
        new SweepPoint<>(16, SweepFixtures.failedRun(LoadProfile.concurrency(16))));

    SweepKnees knees = SweepKnees.ofSweep(points, KneeAxis.OFFERED_LOAD);

    assertThat(knees.saturatedLabel()).contains("concurrency 16");
    assertThat(knees.slopeKneeIsSaturation()).isFalse();
    assertThat(knees.slopeLabel()).contains("concurrency 8");
    assertThat(knees.lastAcceptableLabel()).contains("concurrency 4");
    assertThat(knees.toString()).endsWith("slope concurrency 4 -> concurrency 8 (221.3 ms per unit > 120.0), "
        + "saturated at concurrency 16, skipped [concurrency 16]]");
  }

  @Test
  void aFailedLevelBetweenLevelsWithValuesEndsTheAcceptableRange() {
    // 2 fails completely although 1 and 4 answer: whatever broke there, the slope rule stops at 2.
    List<SweepPoint<Integer>> points = List.of(
        new SweepPoint<>(1, SweepFixtures.run(LoadProfile.concurrency(1), 100)),
        new SweepPoint<>(2, SweepFixtures.failedRun(LoadProfile.concurrency(2))),
        new SweepPoint<>(4, SweepFixtures.run(LoadProfile.concurrency(4), 900)));

    SweepKnees knees = SweepKnees.ofSweep(points, KneeAxis.OFFERED_LOAD);

    assertThat(knees.slope()).isPresent(); // 1 -> 4 over the levels with values: 266.7 ms per stream
    assertThat(knees.slopeKneeIsSaturation()).isTrue();
    assertThat(knees.slopeLabel()).contains("concurrency 2");
    assertThat(knees.lastAcceptableLabel()).contains("concurrency 1");
  }

  @Test
  void failedLevelsBelowEveryLevelWithValuesAreOnlySkipped() {
    List<SweepPoint<Integer>> points = List.of(
        new SweepPoint<>(1, SweepFixtures.failedRun(LoadProfile.concurrency(1))),
        new SweepPoint<>(2, SweepFixtures.run(LoadProfile.concurrency(2), 100)),
        new SweepPoint<>(4, SweepFixtures.run(LoadProfile.concurrency(4), 110)));

    SweepKnees knees = SweepKnees.ofSweep(points, KneeAxis.OFFERED_LOAD);

    assertThat(knees.skippedLabels()).containsExactly("concurrency 1");
    assertThat(knees.saturatedLabel()).isEmpty();
    assertThat(knees.slopeLabel()).isEmpty();
    assertThat(knees.lastAcceptableLabel()).isEmpty();
    assertThat(knees.toString()).endsWith("slope none, skipped [concurrency 1]]");
  }

  @Test
  void duplicateLoadsAndBadPercentilesAreRejected() {
    RunSummary s = RunSummary.of(SweepFixtures.run(LoadProfile.poisson(1), 10));
    List<LoadCurvePoint> dup = List.of(new LoadCurvePoint("a", 1, s), new LoadCurvePoint("b", 1, s));
    assertThatThrownBy(() -> SweepKnees.of(dup)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("same offered load 1.0 (a, b)");
    assertThatThrownBy(() -> SweepKnees.of(List.of(), LatencyMetric.TTFT, 1.0, Kneedle.latencyCurve(),
        SlopeThreshold.defaults())).hasMessageContaining("was 1.0");
  }

  @Test
  void emptyCurveHasNoKnees() {
    SweepKnees none = SweepKnees.of(List.of());
    assertThat(none.kneedleLabel()).isEmpty();
    assertThat(none.slopeLabel()).isEmpty();
  }

  @Test
  void levelsWhoseClientWasNotOkAreNamedWithTheirReasons() {
    List<SweepPoint<Double>> points = new ArrayList<>(rateSweep());
    ClientHealth bound = new ClientHealth(HealthVerdict.CLIENT_BOUND,
        List.of("hiccup p99 12.3 ms > 10 ms: the client's threads could not run on time"), 12_300_000,
        Optional.empty());
    points.set(5, new SweepPoint<>(RATES[5], points.get(5).result().withClientHealth(bound)));

    SweepKnees knees = SweepKnees.ofSweep(points, KneeAxis.OFFERED_LOAD);

    assertThat(knees.clientWarnings()).containsExactly(
        "10.00 req/s: client CLIENT_BOUND: hiccup p99 12.3 ms > 10 ms: the client's threads could not run on time");
    assertThat(knees.toString()).endsWith("; WARNING 10.00 req/s: client CLIENT_BOUND: hiccup p99 12.3 ms > 10 ms: "
        + "the client's threads could not run on time]");
    assertThat(SweepKnees.ofSweep(rateSweep(), KneeAxis.OFFERED_LOAD).clientWarnings()).isEmpty(); // unmeasured runs warn of nothing
  }
}
