package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/**
 * The simulator's documented cold-start case (ColdStartTest: load 100 ms on first request, scale to zero after
 * 150 ms idle), as a client sees it: r1 at 0 ms waits the whole load (TTFT 100 + 20 ms), r2 at 200 ms after 80 ms
 * idle is warm (TTFT 10 ms), r3 at 400 ms after 190 ms idle starts a second load (120 ms), r4 at 430 ms joins it
 * (load 70 ms, TTFT 90 ms). Each request ends 10 ms after its first token.
 */
class ColdStartsTest {

  private static final long MS = 1_000_000L;

  private static RequestRecord request(int index, long sendMs, long ttftMs, double loadMs) {
    ChunkTimeline chunks = ChunkTimeline.builder().add(ttftMs * MS, ChunkKind.CONTENT, 1)
        .add((ttftMs + 10) * MS, ChunkKind.CONTENT, 1).build();
    return RequestRecord.builder().index(index).requestId("r" + (index + 1)).intendedNanos(sendMs * MS)
        .sendNanos(sendMs * MS).httpStatus(200).chunks(chunks).endOffsetNanos((ttftMs + 10) * MS)
        .serverTimings(Map.of(ColdStarts.LOAD_DURATION, loadMs * 1e6)).build();
  }

  private static final List<RequestRecord> RUN = List.of(request(0, 0, 120, 100), request(1, 200, 10, 0),
      request(2, 400, 120, 100), request(3, 430, 90, 70));

  @Test
  void theServersLoadDurationMarksEveryRequestThatWaited() {
    ColdStarts.Split split = ColdStarts.serverReported().split(RUN);

    assertThat(split.cold()).extracting(RequestRecord::requestId).containsExactly("r1", "r3", "r4");
    assertThat(split.warm()).extracting(RequestRecord::requestId).containsExactly("r2");
    assertThat(split.reasons()).containsEntry(3L, "server load_duration 70.0 ms");
    // TTFT cold 120, 120, 90: p50 120, mean 110; warm 10.
    assertThat(split.ttft(true).p50()).hasValue(120.0);
    assertThat(split.ttft(true).mean().getAsDouble()).isCloseTo(110, within(1e-9));
    assertThat(split.ttft(false).p50()).hasValue(10.0);
  }

  @Test
  void theIdleRuleMarksTheRequestThatBreaksAnIdleSpellOfTheGap() {
    // Without the server's word: r1 is the run's first; r2 comes 200 - 130 = 70 ms after r1 ended (< 150);
    // r3 comes 400 - 220 = 180 ms after r2 ended (>= 150); r4 is sent while r3 is in flight. The idle rule
    // cannot see that r4 waited too.
    List<RequestRecord> blind = RUN.stream().map(r -> r.toBuilder().serverTimings(Map.of()).build()).toList();
    ColdStarts rule = ColdStarts.serverReported().afterIdle(Duration.ofMillis(150));
    Map<Long, String> reasons = rule.reasons(blind);

    assertThat(reasons).containsOnlyKeys(0L, 2L);
    assertThat(reasons.get(0L)).isEqualTo("first request of the run");
    assertThat(reasons.get(2L)).isEqualTo("after 180.0 ms idle");
    assertThat(ColdStarts.serverReported().split(blind).cold()).isEmpty();
    // Another source of load times (the simulator's timelines, a header) finds r4 as well.
    ColdStarts timelines = ColdStarts.serverReported().loadTime(r -> r.index() == 3 ? OptionalDouble.of(70)
        : OptionalDouble.empty());
    assertThat(timelines.split(blind).cold()).extracting(RequestRecord::requestId).containsExactly("r4");
  }

  @Test
  void markedRecordsCarryTheReasonAndASummarySplitsWarmFromCold() {
    List<RequestRecord> marked = ColdStarts.serverReported().afterIdle(Duration.ofMillis(150))
        .mark(RUN.stream().map(r -> r.toBuilder().serverTimings(Map.of()).build()).toList());
    assertThat(marked.get(0).tags()).containsEntry(ColdStarts.TAG, "first request of the run");
    assertThat(marked.get(1).tags()).doesNotContainKey(ColdStarts.TAG);

    // A summary of the marked records (tagged: cold by default) keeps both apart; the run's own TTFT mixes them.
    RunSummary s = RunSummary.of(TestRuns.run(marked));
    assertThat(s.coldStarts().cold()).isEqualTo(2);
    assertThat(s.coldStarts().warm()).isEqualTo(2);
    assertThat(s.coldStarts().ttftCold().mean().getAsDouble()).isCloseTo(120, within(1e-9));
    assertThat(s.coldStarts().ttftWarm().mean().getAsDouble()).isCloseTo(50, within(1e-9)); // 10 and 90
    assertThat(s.distribution(LatencyMetric.TTFT).mean().getAsDouble()).isCloseTo(85, within(1e-9));
    assertThat(io.infermark.metrics.report.JsonReport.toJson(s)).contains("\"cold_start\"", "\"cold\": 2");
    assertThat(io.infermark.metrics.report.ConsoleTable.render(s)).contains("cold start (ms)", "TTFT warm", "TTFT cold");
  }
}
