package io.infermark.core.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.DoubleUnaryOperator;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

/** The capacity search over closed-loop concurrency (seed 002's "largest concurrency with P95 ≤ 2 s"), by hand. */
class ConcurrencyCapacitySearchTest {

  private static final ToDoubleFunction<RunResult> P95_E2E = RecordPercentiles.of(RecordPercentiles::e2eSeconds, 0.95);

  /** A closed-loop run at {@code streams} whose 20 requests all take {@code e2e(streams)} seconds. */
  private static RunResult runAt(double streams, DoubleUnaryOperator e2e, List<Double> levels) {
    levels.add(streams);
    long nanos = Math.round(e2e.applyAsDouble(streams) * 1e9);
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      records.add(RequestRecord.builder().index(i).chunks(ChunkTimeline.builder().add(nanos, ChunkKind.CONTENT, 1)
          .build()).endOffsetNanos(nanos).build());
    }
    return RunResult.builder().records(records).startedAt(Instant.EPOCH).durationNanos(1).target("fake")
        .load(LoadProfile.concurrency((int) streams).requests(20)).params(GenerationParams.defaults()).promptCount(1)
        .environment(RunEnvironment.current(false)).schedule(ScheduleStats.of(records, OptionalDouble.empty()))
        .build();
  }

  @Test
  void aLinearCurveGivesTheLargestWholeConcurrencyUnderTheThreshold() {
    // E2E = 0.5 + c/10 s: 2.0 s exactly at 15 streams, 2.1 at 16. Bracketing 1, 2, 4, 8 (1.3 s), 16 (2.1 s);
    // regula falsi 8 + (2 − 1.3) × 8 / 0.8 = 15: passes, and [15, 16] are neighbours: done in 6 runs.
    List<Double> levels = new ArrayList<>();
    CapacityResult c = CapacitySearch.atMost(P95_E2E, 2.0).overConcurrency()
        .run(streams -> runAt(streams, s -> 0.5 + s / 10, levels));

    assertThat(levels).containsExactly(1.0, 2.0, 4.0, 8.0, 16.0, 15.0);
    assertThat(c.capacity()).hasValue(15);
    assertThat(c.axis()).isEqualTo(CapacityAxis.CONCURRENCY);
    assertThat(c.limitedByMaxRate()).isFalse();
    assertThat(c.toString()).startsWith("CapacityResult[concurrency 15 streams in 6 runs");
  }

  @Test
  void refinementStepsOnWholeNumbersAndNeverProbesALevelTwice() {
    // E2E = 0.5 + 1.5 (c/20)² s: 2.0 s at exactly 20 streams. Bracket 16 (1.46 s) .. 32 (4.34 s); interpolation
    // gives 19 (1.854 s, pass), then 19.76 kept 10 % inside [19, 32] = 20.3, rounded to 20 (2.0 s, pass), then
    // 20 kept inside [20, 32] = 21.2 -> 21 (fail): [20, 21] are neighbours.
    List<Double> levels = new ArrayList<>();
    CapacityResult c = CapacitySearch.atMost(P95_E2E, 2.0).overConcurrency()
        .run(streams -> runAt(streams, s -> 0.5 + 1.5 * (s / 20) * (s / 20), levels));

    assertThat(levels).containsExactly(1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 19.0, 20.0, 21.0);
    assertThat(levels).allSatisfy(l -> assertThat(l).isEqualTo(Math.rint(l))).doesNotHaveDuplicates();
    assertThat(c.capacity()).hasValue(20);
  }

  @Test
  void bracketingDownStopsAtOneStreamAndUpAtTheMaximum() {
    List<Double> levels = new ArrayList<>();
    // Nothing passes: 8, 4, 2, 1, and then no level below one stream.
    CapacityResult none = CapacitySearch.atMost(P95_E2E, 0.1).overConcurrency().startRate(8)
        .run(streams -> runAt(streams, s -> 1, levels));
    assertThat(levels).containsExactly(8.0, 4.0, 2.0, 1.0);
    assertThat(none.capacity()).isEmpty();
    assertThat(none.toString()).contains("no passing concurrency");

    // Everything passes: 1, 2, 4, 8, 10 (the maximum, not 16), limited by it.
    levels.clear();
    CapacityResult all = CapacitySearch.atMost(P95_E2E, 100).overConcurrency().maxRate(10)
        .run(streams -> runAt(streams, s -> 1, levels));
    assertThat(levels).containsExactly(1.0, 2.0, 4.0, 8.0, 10.0);
    assertThat(all.capacity()).hasValue(10);
    assertThat(all.limitedByMaxRate()).isTrue();

    // A small growth factor still moves by at least one stream: 1, 2, 3, 4 ... never 1 again.
    levels.clear();
    CapacitySearch.atMost(P95_E2E, 0.35).overConcurrency().growth(1.1).run(streams -> runAt(streams, s -> s / 10,
        levels));
    assertThat(levels).containsExactly(1.0, 2.0, 3.0, 4.0);
  }

  @Test
  void levelsAreRoundedToWholeStreamsAndBadBoundsAreRefused() {
    List<Double> levels = new ArrayList<>();
    CapacityResult c = CapacitySearch.atMost(P95_E2E, 100).overConcurrency().startRate(2.6).maxRate(3.9)
        .run(streams -> runAt(streams, s -> 1, levels));
    assertThat(levels).containsExactly(3.0);
    assertThat(c.capacity()).hasValue(3);
    assertThat(CapacitySearch.atMost(P95_E2E, 2).overConcurrency().axis()).isEqualTo(CapacityAxis.CONCURRENCY);
    assertThat(CapacitySearch.atMost(P95_E2E, 2).axis()).isEqualTo(CapacityAxis.RATE);
    assertThat(CapacitySearch.atMost(P95_E2E, 2).overConcurrency().toString()).contains("over concurrency",
        "range [1.0, 1024.0]");
    assertThatThrownBy(() -> CapacitySearch.atMost(P95_E2E, 2).overConcurrency().startRate(8).maxRate(4)
        .run(streams -> runAt(streams, s -> 1, levels)))
        .hasMessageContaining("minRate <= startRate <= maxRate").hasMessageContaining("whole streams");
  }

  @Test
  void aRateSearchSaysItIsOne() {
    List<Double> levels = new ArrayList<>();
    CapacityResult r = CapacitySearch.atMost(P95_E2E, 100).maxRate(2).run(rate -> runAt(1, s -> 1, levels));
    assertThat(r.axis()).isEqualTo(CapacityAxis.RATE);
    assertThat(r.toString()).startsWith("CapacityResult[2.000 req/s");
  }
}
