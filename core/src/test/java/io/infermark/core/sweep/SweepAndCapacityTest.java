package io.infermark.core.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.fixtures.RunFixtures;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.HealthVerdict;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

class SweepAndCapacityTest {

  /** A run of 20 requests whose E2E latencies are the given seconds. */
  private static RunResult runWithE2e(double... seconds) {
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < seconds.length; i++) {
      long nanos = Math.round(seconds[i] * 1e9);
      records.add(RequestRecord.builder().index(i).chunks(ChunkTimeline.builder().add(nanos / 2, ChunkKind.CONTENT, 1)
          .add(nanos, ChunkKind.CONTENT, 1).build()).usage(Usage.of(1, 2)).endOffsetNanos(nanos).build());
    }
    LoadProfile load = LoadProfile.constantRate(1).requests(seconds.length);
    return RunFixtures.run(records).load(load).durationNanos(1).target("fake").build();
  }

  private static final ToDoubleFunction<RunResult> P95_E2E = RecordPercentiles.of(RecordPercentiles::e2eSeconds, 0.95);

  @Test
  void recordPercentilesMatchNumpyOnMeasuredSuccesses() {
    // numpy.percentile([1, 2, 3, 4, 10], 95) = 8.8 (linear)
    assertThat(P95_E2E.applyAsDouble(runWithE2e(1, 2, 3, 4, 10))).isCloseTo(8.8, within(1e-9));
    assertThat(RecordPercentiles.of(RecordPercentiles::ttftSeconds, 0.5).applyAsDouble(runWithE2e(1, 2, 3)))
        .isCloseTo(1.0, within(1e-9));
  }

  /** The deterministic fake: every E2E is 0.5 + 1.5·(rate/100)² s, so P95 E2E ≤ 2 s exactly up to 100/s. */
  private static RunResult fakeAt(double rate, int[] runs) {
    runs[0]++;
    double e2e = 0.5 + 1.5 * (rate / 100) * (rate / 100);
    double[] all = new double[20];
    java.util.Arrays.fill(all, e2e);
    return runWithE2e(all);
  }

  @Test
  void capacitySearchFindsTheKneeOfAKnownCurveInFewRuns() {
    int[] runs = {0};
    CapacityResult c = CapacitySearch.atMost(P95_E2E, 2.0).startRate(4).run(rate -> fakeAt(rate, runs));

    // Bracketing 4, 8, ..., 128 (6 runs) then regula falsi: 94.75, 99.34, 102.2 — 9 runs in all.
    assertThat(c.runs()).isEqualTo(runs[0]).isLessThanOrEqualTo(10);
    assertThat(c.capacity().getAsDouble()).isBetween(95.0, 100.0);
    assertThat(c.limitedByMaxRate()).isFalse();
    assertThat(c.probes().get(5).rate()).isEqualTo(128);
    assertThat(c.probes().get(5).passed()).isFalse();
    // Bisection on a plain predicate needs more runs for the same tolerance, and still finds it.
    int[] bisectionRuns = {0};
    CapacityResult b = CapacitySearch.passing(r -> P95_E2E.applyAsDouble(r) <= 2.0).startRate(4)
        .run(rate -> fakeAt(rate, bisectionRuns));
    assertThat(b.capacity().getAsDouble()).isBetween(95.0, 100.0);
    assertThat(b.runs()).isGreaterThan(c.runs());
  }

  @Test
  void capacitySearchReportsWhenNothingOrEverythingPasses() {
    int[] runs = {0};
    CapacityResult none = CapacitySearch.atMost(P95_E2E, 0.1).startRate(4).minRate(1).run(r -> fakeAt(r, runs));
    assertThat(none.capacity()).isEmpty();
    assertThat(none.runs()).isEqualTo(3); // 4, 2, 1
    CapacityResult all = CapacitySearch.atMost(P95_E2E, 100).startRate(4).maxRate(20).run(r -> fakeAt(r, runs));
    assertThat(all.capacity()).hasValue(20);
    assertThat(all.limitedByMaxRate()).isTrue();
    assertThatThrownBy(() -> CapacitySearch.atMost(P95_E2E, 2).startRate(10).maxRate(5).run(r -> fakeAt(r, runs)))
        .hasMessageContaining("minRate <= startRate <= maxRate");
  }

  @Test
  void sweepRunsEveryLevelInOrderAndGridsEveryCombination() {
    Target instant = (request, observer, cancellation) -> {
      observer.onChunk(Clock.system().nanoTime(), ChunkKind.CONTENT, 1);
      observer.onComplete(Clock.system().nanoTime());
    };
    Benchmark base = Benchmark.target(instant).prompts(Prompt.user("x"));
    // Judged by a machine's load, a real run could be client-bound and refused by lastPassing; this test is
    // about order, so its runs are judged by nothing (capacityRefusesClientBoundRuns tests the refusal).
    List<SweepPoint<Integer>> points = Sweep.concurrency(1, 2, 4)
        .run(c -> base.load(LoadProfile.concurrency(c).requests(4 * c)).run().withClientHealth(ClientHealth.UNMEASURED));
    assertThat(points).extracting(SweepPoint::level).containsExactly(1, 2, 4);
    assertThat(Sweep.values(points, r -> r.records().size())).containsExactly(4, 8, 16);
    assertThat(Sweep.lastPassing(points, r -> r.records().size() <= 8).orElseThrow().level()).isEqualTo(2);

    Sweep<GridPoint<Double, Integer>> grid = Sweep.grid(List.of(1.0, 2.0), List.of(64, 128, 256));
    assertThat(grid.levels()).hasSize(6).first().isEqualTo(new GridPoint<>(1.0, 64));
    assertThat(grid.levels().get(5)).isEqualTo(new GridPoint<>(2.0, 256));
    assertThatThrownBy(() -> Sweep.rates(1, 0)).hasMessageContaining("sweep rates must be finite and > 0");
    assertThatThrownBy(() -> Sweep.over(List.of())).hasMessageContaining("at least one level");
  }

  private static final ClientHealth CLIENT_BOUND = new ClientHealth(HealthVerdict.CLIENT_BOUND,
      List.of("hiccup p99 12.3 ms > 10 ms: the client's threads could not run on time"), 12_300_000, Optional.empty());

  @Test
  void capacitySearchDoesNotAcceptAClientBoundRunAsMeetingTheSlo() {
    int[] runs = {0};
    // The fake's SLO holds up to 100/s, but from 64/s on its client is starved: those runs cannot count.
    CapacityResult c = CapacitySearch.atMost(P95_E2E, 2.0).startRate(4)
        .run(rate -> rate >= 64 ? fakeAt(rate, runs).withClientHealth(CLIENT_BOUND) : fakeAt(rate, runs));

    assertThat(c.capacity().getAsDouble()).isLessThan(64);
    assertThat(c.clientBoundProbes()).isNotEmpty().allMatch(p -> p.rate() >= 64);
    CapacityProbe at64 = c.probes().stream().filter(p -> p.rate() == 64).findFirst().orElseThrow();
    assertThat(at64.sloMet()).isTrue();
    assertThat(at64.passed()).isFalse();
    assertThat(at64.refusedAsClientBound()).isTrue();
    assertThat(at64.toString()).contains("REFUSED", "client CLIENT_BOUND");
    assertThat(c.warnings()).contains("64.00 req/s met the SLO but was not accepted: the client was CLIENT_BOUND "
        + "(hiccup p99 12.3 ms > 10 ms: the client's threads could not run on time)");
    assertThat(c.toString()).contains("client-bound run", "not accepted as passing: hiccup p99 12.3 ms > 10 ms");
  }

  @Test
  void sweepsCarryEachLevelsHealthAndNeverPassAClientBoundLevel() {
    List<SweepPoint<Integer>> points = List.of(new SweepPoint<>(1, runWithE2e(1, 1)),
        new SweepPoint<>(2, runWithE2e(1, 1).withClientHealth(CLIENT_BOUND)));

    assertThat(points.get(1).clientHealth()).isEqualTo(CLIENT_BOUND);
    assertThat(Sweep.lastPassing(points, r -> true).orElseThrow().level()).isEqualTo(1);
    assertThat(Sweep.healthWarnings(points)).containsExactly(
        "level 2: client CLIENT_BOUND: hiccup p99 12.3 ms > 10 ms: the client's threads could not run on time");
  }

  @Test
  void aClientBoundFirstProbeEndsTheSearchInsteadOfWalkingTheRateDown() {
    int[] runs = {0};
    CapacityResult c = CapacitySearch.atMost(P95_E2E, 2.0).startRate(4).minRate(0.01)
        .run(rate -> fakeAt(rate, runs).withClientHealth(CLIENT_BOUND));

    assertThat(runs[0]).isEqualTo(1);
    assertThat(c.capacity()).isEmpty();
    assertThat(c.stoppedEarly()).hasValueSatisfying(why -> assertThat(why)
        .contains("probe at 4.000 req/s was CLIENT_BOUND", "hiccup p99 12.3 ms", "instead of walking the rate down"));
    assertThat(c.toString()).contains("stopped early");
  }

  @Test
  void theSearchHandsOverEachProbeAsItEndsAndStopsWhenAsked() {
    int[] runs = {0};
    List<Double> seen = new ArrayList<>();
    CapacityResult c = CapacitySearch.atMost(P95_E2E, 2.0).startRate(4)
        .run(rate -> fakeAt(rate, runs), p -> seen.add(p.rate()), () -> seen.size() >= 3);

    assertThat(seen).containsExactly(4.0, 8.0, 16.0);
    assertThat(c.runs()).isEqualTo(3);
    assertThat(c.capacity()).hasValue(16.0);
    assertThat(c.stoppedEarly()).hasValue("stopped before the probe at 32.00 req/s");
  }

  @Test
  void anInterruptedProbeEndsTheSearch() {
    int[] runs = {0};
    io.infermark.core.Interruption sigterm = new io.infermark.core.Interruption("SIGTERM", Instant.EPOCH, 0, 1, 0, 0,
        0);
    CapacityResult c = CapacitySearch.atMost(P95_E2E, 2.0).startRate(4)
        .run(rate -> rate >= 8 ? fakeAt(rate, runs).withInterruption(Optional.of(sigterm)) : fakeAt(rate, runs));

    assertThat(c.runs()).isEqualTo(2);
    assertThat(c.stoppedEarly()).hasValue("the probe at 8.000 req/s was interrupted (SIGTERM)");
  }

  @Test
  void aSweepHandsOverEachLevelAsItEndsAndKeepsThoseThatRanWhenStopped() {
    List<Integer> seen = new ArrayList<>();
    List<SweepPoint<Integer>> points = Sweep.concurrency(1, 2, 4, 8)
        .run(c -> runWithE2e(c), p -> seen.add(p.level()), () -> seen.size() >= 2);

    assertThat(seen).containsExactly(1, 2);
    assertThat(points).extracting(SweepPoint::level).containsExactly(1, 2);
  }
}
