package io.infermark.metrics;

import static io.infermark.core.capture.ChunkTimeline.UNKNOWN_TOKENS;
import static io.infermark.metrics.TestRuns.ms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.metrics.LatencyMetric.Tool;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LatencyMetricTest {

  private static RequestRecord record(ChunkTimeline chunks) {
    return RequestRecord.builder().chunks(chunks).endOffsetNanos(chunks.lastOffsetNanos()).build();
  }

  @Test
  void ttftIgnoresRoleOnlyChunk() {
    RequestRecord r = record(ChunkTimeline.builder()
        .add(ms(5), ChunkKind.ROLE, UNKNOWN_TOKENS)
        .add(ms(12), ChunkKind.CONTENT, UNKNOWN_TOKENS)
        .add(ms(15), ChunkKind.CONTENT, UNKNOWN_TOKENS)
        .build());

    assertThat(LatencyMetric.TTFT.valuesMillis(r)).containsExactly(12.0);
  }

  @Test
  void ttftIgnoresEmptyAndUsageChunksButStartsAtReasoning() {
    RequestRecord r = record(ChunkTimeline.builder()
        .add(ms(1), ChunkKind.USAGE, 0)
        .add(ms(2), ChunkKind.EMPTY, UNKNOWN_TOKENS)
        .add(ms(8), ChunkKind.REASONING, UNKNOWN_TOKENS)
        .add(ms(30), ChunkKind.CONTENT, UNKNOWN_TOKENS)
        .build());

    assertThat(LatencyMetric.TTFT.valuesMillis(r)).containsExactly(8.0);
  }

  @Test
  void ttftStartsAtToolCall() {
    RequestRecord r = record(ChunkTimeline.builder()
        .add(ms(3), ChunkKind.ROLE, UNKNOWN_TOKENS)
        .add(ms(9.5), ChunkKind.TOOL_CALL, UNKNOWN_TOKENS)
        .build());

    assertThat(LatencyMetric.TTFT.valuesMillis(r)).containsExactly(9.5);
    assertThat(LatencyMetric.TTFC.valuesMillis(r)).isEmpty();
  }

  @Test
  void ttfcSkipsReasoning() {
    RequestRecord r = record(ChunkTimeline.builder()
        .add(ms(1), ChunkKind.ROLE, UNKNOWN_TOKENS)
        .add(ms(8), ChunkKind.REASONING, UNKNOWN_TOKENS)
        .add(ms(10), ChunkKind.REASONING, UNKNOWN_TOKENS)
        .add(ms(20.25), ChunkKind.CONTENT, UNKNOWN_TOKENS)
        .add(ms(22), ChunkKind.CONTENT, UNKNOWN_TOKENS)
        .build());

    assertThat(LatencyMetric.TTFC.valuesMillis(r)).containsExactly(20.25);
    assertThat(LatencyMetric.TTFT.valuesMillis(r)).containsExactly(8.0);
  }

  @Test
  void vllmCompatCountsTheRoleChunk() {
    RequestRecord r = record(ChunkTimeline.builder()
        .add(ms(5), ChunkKind.ROLE, UNKNOWN_TOKENS)
        .add(ms(12), ChunkKind.CONTENT, UNKNOWN_TOKENS)
        .build());

    assertThat(LatencyMetric.TTFT_VLLM_COMPAT.valuesMillis(r)).containsExactly(5.0);
  }

  @Test
  void vllmCompatSkipsUsageOnlyChunksButCountsEmptyChoices() {
    RequestRecord r = record(ChunkTimeline.builder()
        .add(ms(2), ChunkKind.USAGE, UNKNOWN_TOKENS)
        .add(ms(4), ChunkKind.EMPTY, UNKNOWN_TOKENS)
        .add(ms(12), ChunkKind.CONTENT, UNKNOWN_TOKENS)
        .build());

    assertThat(LatencyMetric.TTFT_VLLM_COMPAT.valuesMillis(r)).containsExactly(4.0);
  }

  @Test
  void itlIsEveryGapBetweenTokenBearingChunksIgnoringOtherKinds() {
    RequestRecord r = record(ChunkTimeline.builder()
        .add(ms(3), ChunkKind.ROLE, UNKNOWN_TOKENS)
        .add(ms(10), ChunkKind.REASONING, UNKNOWN_TOKENS)
        .add(ms(12), ChunkKind.EMPTY, UNKNOWN_TOKENS)
        .add(ms(15), ChunkKind.CONTENT, UNKNOWN_TOKENS)
        .add(ms(25), ChunkKind.TOOL_CALL, UNKNOWN_TOKENS)
        .add(ms(26), ChunkKind.USAGE, UNKNOWN_TOKENS)
        .build());

    assertThat(LatencyMetric.ITL.valuesMillis(r)).containsExactly(5.0, 10.0);
    assertThat(LatencyMetric.ITL.isPooled()).isTrue();
  }

  @Test
  void itlIsUndefinedForASingleTokenChunk() {
    RequestRecord r = record(ChunkTimeline.builder().add(ms(10), ChunkKind.CONTENT, 7).build());

    assertThat(LatencyMetric.ITL.valuesMillis(r)).isEmpty();
    assertThat(LatencyMetric.ITL_PER_TOKEN.valuesMillis(r)).isEmpty();
  }

  @Test
  void perTokenItlDividesEachGapByTheLaterChunksKnownTokens() {
    RequestRecord r = record(ChunkTimeline.builder()
        .add(ms(10), ChunkKind.CONTENT, 1)
        .add(ms(20), ChunkKind.CONTENT, 4)              // 10 ms / 4 tokens
        .add(ms(26), ChunkKind.CONTENT, UNKNOWN_TOKENS) // unknown count: no value, but ends the gap
        .add(ms(30), ChunkKind.CONTENT, 2)              // 4 ms / 2 tokens
        .add(ms(31), ChunkKind.CONTENT, 0)              // zero tokens: cannot divide
        .add(ms(34), ChunkKind.CONTENT, 3)              // 3 ms / 3 tokens
        .build());

    assertThat(LatencyMetric.ITL_PER_TOKEN.valuesMillis(r)).containsExactly(2.5, 2.0, 1.0);
    assertThat(LatencyMetric.ITL.valuesMillis(r)).containsExactly(10.0, 6.0, 4.0, 1.0, 3.0);
  }

  @Test
  void tpotAndNtpotUseServerReportedN() {
    RequestRecord r = RequestRecord.builder()
        .chunks(ChunkTimeline.builder()
            .add(ms(10), ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .add(ms(20), ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .add(ms(30), ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .add(ms(31), ChunkKind.USAGE, UNKNOWN_TOKENS)
            .build())
        .usage(Usage.of(100, 5))
        .endOffsetNanos(ms(32))
        .build();

    assertThat(r.outputTokens()).isEqualTo(5);
    // (30 - 10) / (5 - 1) and 30 / 5
    assertThat(LatencyMetric.TPOT.valuesMillis(r)).containsExactly(5.0);
    assertThat(LatencyMetric.NTPOT.valuesMillis(r)).containsExactly(6.0);
  }

  @Test
  void tpotAndNtpotFallBackToChunkCountN() {
    RequestRecord r = record(ChunkTimeline.builder()
        .add(ms(10), ChunkKind.CONTENT, UNKNOWN_TOKENS)
        .add(ms(20), ChunkKind.CONTENT, UNKNOWN_TOKENS)
        .add(ms(30), ChunkKind.CONTENT, UNKNOWN_TOKENS)
        .build());

    assertThat(r.outputTokens()).isEqualTo(3);
    // (30 - 10) / (3 - 1) and 30 / 3
    assertThat(LatencyMetric.TPOT.valuesMillis(r)).containsExactly(10.0);
    assertThat(LatencyMetric.NTPOT.valuesMillis(r)).containsExactly(10.0);
  }

  @Test
  void tpotNeedsMoreThanOneTokenButNtpotOneIsEnough() {
    RequestRecord r = record(ChunkTimeline.builder().add(ms(40), ChunkKind.CONTENT, 1).build());

    assertThat(LatencyMetric.TPOT.valuesMillis(r)).isEmpty();
    assertThat(LatencyMetric.NTPOT.valuesMillis(r)).containsExactly(40.0);
  }

  @Test
  void tpotKeepsFractionalNanoseconds() {
    RequestRecord r = RequestRecord.builder()
        .chunks(ChunkTimeline.builder()
            .add(100, ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .add(200, ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .build())
        .usage(Usage.of(1, 4))
        .build();

    // 100 ns / 3 = 33.333... ns
    assertThat(LatencyMetric.TPOT.valuesMillis(r)[0]).isCloseTo(100.0 / 3 / 1e6, within(1e-18));
  }

  @Test
  void e2eEndsAtLastTokenBearingChunkAndStreamCloseIsKeptSeparately() {
    RequestRecord r = RequestRecord.builder()
        .chunks(ChunkTimeline.builder()
            .add(ms(10), ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .add(ms(30), ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .add(ms(31), ChunkKind.EMPTY, UNKNOWN_TOKENS)
            .add(ms(33), ChunkKind.USAGE, UNKNOWN_TOKENS)
            .build())
        .endOffsetNanos(ms(35))
        .build();

    assertThat(LatencyMetric.E2E.valuesMillis(r)).containsExactly(30.0);
    assertThat(LatencyMetric.STREAM_CLOSE.valuesMillis(r)).containsExactly(35.0);
  }

  @Test
  void fromIntendedVariantsAddTheScheduleLag() {
    RequestRecord r = RequestRecord.builder()
        .intendedNanos(ms(1000))
        .sendNanos(ms(1250))
        .chunks(ChunkTimeline.builder()
            .add(ms(10), ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .add(ms(30), ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .build())
        .endOffsetNanos(ms(31))
        .build();

    assertThat(LatencyMetric.SCHEDULE_LAG.valuesMillis(r)).containsExactly(250.0);
    assertThat(LatencyMetric.TTFT.valuesMillis(r)).containsExactly(10.0);
    assertThat(LatencyMetric.TTFT_FROM_INTENDED.valuesMillis(r)).containsExactly(260.0);
    assertThat(LatencyMetric.E2E.valuesMillis(r)).containsExactly(30.0);
    assertThat(LatencyMetric.E2E_FROM_INTENDED.valuesMillis(r)).containsExactly(280.0);
  }

  @Test
  void requestWithoutTokenBearingChunkHasNoTokenMetricsButHasStreamClose() {
    RequestRecord r = RequestRecord.builder()
        .chunks(ChunkTimeline.builder()
            .add(ms(5), ChunkKind.ROLE, UNKNOWN_TOKENS)
            .add(ms(6), ChunkKind.EMPTY, UNKNOWN_TOKENS)
            .add(ms(7), ChunkKind.USAGE, UNKNOWN_TOKENS)
            .build())
        .endOffsetNanos(ms(8))
        .build();

    for (LatencyMetric m : new LatencyMetric[] {LatencyMetric.TTFT, LatencyMetric.TTFC, LatencyMetric.ITL,
        LatencyMetric.ITL_PER_TOKEN, LatencyMetric.TPOT, LatencyMetric.NTPOT, LatencyMetric.E2E,
        LatencyMetric.TTFT_FROM_INTENDED, LatencyMetric.E2E_FROM_INTENDED}) {
      assertThat(m.valuesMillis(r)).as(m.name()).isEmpty();
    }
    assertThat(LatencyMetric.TTFT_VLLM_COMPAT.valuesMillis(r)).containsExactly(5.0);
    assertThat(LatencyMetric.STREAM_CLOSE.valuesMillis(r)).containsExactly(8.0);
    assertThat(LatencyMetric.SCHEDULE_LAG.valuesMillis(r)).containsExactly(0.0);
  }

  @Test
  void fieldNamesCarryTheUnit() {
    assertThat(LatencyMetric.TTFT.fieldName()).isEqualTo("ttft_ms");
    assertThat(LatencyMetric.TTFT_VLLM_COMPAT.fieldName()).isEqualTo("ttft_vllm_compat_ms");
    assertThat(LatencyMetric.SCHEDULE_LAG.fieldName()).isEqualTo("schedule_lag_ms");
    assertThat(LatencyMetric.values()).allSatisfy(m -> assertThat(m.unit()).isEqualTo("ms"));
  }

  @Test
  void aliasesNameTheEquivalentMetricOfEachTool() {
    assertThat(LatencyMetric.TPOT.aliases()).containsOnlyKeys(Tool.VLLM_BENCH_SERVE, Tool.GUIDELLM, Tool.AIPERF);
    assertThat(LatencyMetric.TPOT.aliases().get(Tool.VLLM_BENCH_SERVE)).startsWith("tpot_ms");
    assertThat(LatencyMetric.TPOT.aliases().get(Tool.GUIDELLM)).startsWith("inter_token_latency_ms");
    assertThat(LatencyMetric.TPOT.aliases().get(Tool.AIPERF)).startsWith("inter_token_latency");
    assertThat(LatencyMetric.NTPOT.aliases().get(Tool.GUIDELLM)).startsWith("time_per_output_token_ms");
    assertThat(LatencyMetric.TTFT_VLLM_COMPAT.aliases().get(Tool.VLLM_BENCH_SERVE)).startsWith("ttft_ms");
    assertThat(LatencyMetric.TTFT.aliases()).doesNotContainKey(Tool.VLLM_BENCH_SERVE);
    assertThat(LatencyMetric.SCHEDULE_LAG.aliases()).isEmpty();
    assertThat(LatencyMetric.values()).allSatisfy(m -> assertThat(m.definition()).isNotBlank());
  }

  @Test
  void valuesIgnoreOutcomeBecauseTheSummaryDecidesWhatCounts() {
    RequestRecord failed = RequestRecord.builder()
        .chunks(ChunkTimeline.builder().add(ms(10), ChunkKind.CONTENT, UNKNOWN_TOKENS).build())
        .failure(Optional.of(io.infermark.core.capture.Failure.of(io.infermark.core.capture.ErrorCategory.RESET,
            "connection reset")))
        .build();

    assertThat(LatencyMetric.TTFT.valuesMillis(failed)).containsExactly(10.0);
  }
}
