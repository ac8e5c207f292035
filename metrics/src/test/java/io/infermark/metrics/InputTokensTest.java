package io.infermark.metrics;

import static io.infermark.metrics.TestRuns.ms;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.workload.WorkloadTags;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Input tokens: the server's usage when reported, else the client's count of the prompt, labelled so. */
class InputTokensTest {

  private static RequestRecord record(int index, Usage usage, Map<String, String> tags) {
    return RequestRecord.builder().index(index).intendedNanos(ms(index)).sendNanos(ms(index)).tags(tags)
        .chunks(ChunkTimeline.builder().add(ms(10), ChunkKind.CONTENT, ChunkTimeline.UNKNOWN_TOKENS).build())
        .usage(usage).endOffsetNanos(ms(11)).build();
  }

  @Test
  void theClientsCountStandsInWhenTheServerReportsNoPromptTokens() {
    RunSummary s = RunSummary.of(TestRuns.run(List.of(
        record(0, Usage.of(70, 1), Map.of(WorkloadTags.INPUT_TOKENS_ACHIEVED, "64")), // the server's 70 wins
        record(1, Usage.NONE, Map.of(WorkloadTags.INPUT_TOKENS_ACHIEVED, "64")),      // the client's 64
        record(2, Usage.NONE, Map.of(WorkloadTags.INPUT_TOKENS_ACHIEVED, "not a number")),
        record(3, Usage.NONE, Map.of()))));

    TokenSummary t = s.tokens();
    assertThat(t.inputTokens()).isEqualTo(134);
    assertThat(t.requestsWithInputTokens()).isEqualTo(2);
    assertThat(t.requestsWithClientInputTokens()).isEqualTo(1);
    assertThat(t.requestsWithoutInputTokens()).isEqualTo(2);
    assertThat(t.meanInputTokens()).hasValue(67.0);
    assertThat(t.toString()).contains("134 input tokens (1 counted by the client, 2 unknown)");
  }
}
