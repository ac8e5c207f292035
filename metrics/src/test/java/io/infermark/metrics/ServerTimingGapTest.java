package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Client − server per record, against hand-computed values in each server's units. */
class ServerTimingGapTest {

  /** First token at 30 ms, last at 130 ms after send. */
  private static RequestRecord record(Map<String, Double> timings) {
    return RequestRecord.builder().httpStatus(200).endOffsetNanos(140_000_000L)
        .chunks(ChunkTimeline.builder().add(30_000_000L, ChunkKind.CONTENT, 1).add(130_000_000L, ChunkKind.CONTENT, 1)
            .build())
        .serverTimings(timings).build();
  }

  @Test
  void ollamaNanosecondsIncludeTheLoadInThePrefill() {
    RequestRecord r = record(Map.of("total_duration", 120e6, "load_duration", 10e6, "prompt_eval_duration", 15e6,
        "eval_duration", 95e6));
    assertThat(ServerTimingGap.TTFT_MINUS_SERVER_PREFILL.millis(r)).hasValue(30 - (10 + 15));
    assertThat(ServerTimingGap.E2E_MINUS_SERVER_TOTAL.millis(r)).hasValue(130 - 120);
  }

  @Test
  void llamaCppMillisecondsAddPromptAndPredicted() {
    RequestRecord r = record(Map.of("timings.prompt_ms", 22.5, "timings.predicted_ms", 100.0, "timings.prompt_n", 9.0));
    assertThat(ServerTimingGap.TTFT_MINUS_SERVER_PREFILL.millis(r)).hasValue(30 - 22.5);
    assertThat(ServerTimingGap.E2E_MINUS_SERVER_TOTAL.millis(r)).hasValue(130 - 122.5);
  }

  @Test
  void llamaCppTpotGapDividesPredictedTimeByTheTokensAfterTheFirst() {
    // client TPOT = (130 - 30) / (2 - 1) = 100 ms; server 90 ms over predicted_n 3 = 45 ms per token after the first
    RequestRecord r = record(Map.of("timings.prompt_ms", 22.5, "timings.predicted_ms", 90.0, "timings.predicted_n", 3.0));
    assertThat(ServerTimingGap.TPOT_MINUS_SERVER_PER_TOKEN.millis(r)).hasValue(100 - 45.0);
    assertThat(ServerTimingGap.TPOT_MINUS_SERVER_PER_TOKEN.label()).isEqualTo("TPOT-srv per token");
  }

  @Test
  void aSingleTokenGivesNoTpotGap() {
    RequestRecord r = record(Map.of("timings.predicted_ms", 90.0, "timings.predicted_n", 1.0));
    assertThat(ServerTimingGap.TPOT_MINUS_SERVER_PER_TOKEN.millis(r)).isEmpty();
  }

  @Test
  void tgiComputeTimeIsInSecondsAndGivesNoPrefill() {
    RequestRecord r = record(Map.of("x-compute-time", 0.125, "x-queue-time", 3.0));
    assertThat(ServerTimingGap.E2E_MINUS_SERVER_TOTAL.millis(r)).hasValue(5.0);
    assertThat(ServerTimingGap.TTFT_MINUS_SERVER_PREFILL.millis(r)).isEmpty();
  }

  @Test
  void aRecordWithoutServerTimingsOrTokensHasNoGap() {
    assertThat(ServerTimingGap.E2E_MINUS_SERVER_TOTAL.millis(record(Map.of()))).isEmpty();
    RequestRecord noTokens = RequestRecord.builder().httpStatus(200).serverTimings(Map.of("total_duration", 1e6)).build();
    assertThat(ServerTimingGap.E2E_MINUS_SERVER_TOTAL.millis(noTokens)).isEmpty();
  }
}
