package io.infermark.metrics;

import static io.infermark.metrics.TestRuns.ms;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.workload.WorkloadTags;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ServerNoticesTest {

  /** A successful record of {@code tokens} one-token chunks 10 ms apart, asking for {@code asked} with ignore_eos. */
  private static RequestRecord streamed(int index, int tokens, int asked) {
    ChunkTimeline.Builder c = ChunkTimeline.builder();
    for (int i = 0; i < tokens; i++) {
      c.add(ms(100 + 10 * i), ChunkKind.CONTENT, ChunkTimeline.UNKNOWN_TOKENS);
    }
    return RequestRecord.builder().index(index).intendedNanos(ms(index)).sendNanos(ms(index)).chunks(c.build())
        .tags(asked > 0 ? Map.of(WorkloadTags.OUTPUT_TOKENS_REQUESTED, Integer.toString(asked)) : Map.of())
        .endOffsetNanos(ms(100 + 10 * tokens)).httpStatus(200).build();
  }

  private static RequestRecord empty(int index) {
    return RequestRecord.builder().index(index).intendedNanos(ms(index)).sendNanos(ms(index)).httpStatus(200)
        .failure(Optional.of(Failure.of(ErrorCategory.EMPTY_RESPONSE, "the reply ended without a single token")
            .withHttpStatus(200))).endOffsetNanos(ms(50)).build();
  }

  @Test
  void emptyRepliesAreFailuresOfTheirOwnCategoryAndContributeNoLatency() {
    List<RequestRecord> records = new ArrayList<>(List.of(streamed(0, 5, 0), empty(1), empty(2), streamed(3, 5, 0)));
    RunSummary s = RunSummary.of(TestRuns.run(records));

    assertThat(s.requests().succeeded()).isEqualTo(2);
    assertThat(s.requests().failed()).isEqualTo(2);
    assertThat(s.failuresByCategory()).containsExactly(Map.entry(ErrorCategory.EMPTY_RESPONSE, 2));
    assertThat(s.distribution(LatencyMetric.TTFT).count()).isEqualTo(2);
    assertThat(s.distribution(LatencyMetric.E2E).count()).isEqualTo(2);
    assertThat(ServerNotices.of(s)).containsExactly("2 of 4 requests came back empty (a successful reply without a "
        + "single token): counted as EMPTY_RESPONSE failures, with no TTFT, TPOT or E2E; vLLM's client would count "
        + "them as successful");
  }

  @Test
  void outputsFarShorterThanAskedWithIgnoreEosAreCountedAndNamed() {
    // asked 384: 290 is short (< 90 %), 350 and 384 are not; the request without the tag asked for nothing exact
    RunSummary s = RunSummary.of(TestRuns.run(List.of(streamed(0, 384, 384), streamed(1, 350, 384),
        streamed(2, 290, 384), streamed(3, 12, 0), streamed(4, 100, 384))));

    ShortOutputs shortOutputs = s.tokens().shortOutputs();
    assertThat(shortOutputs).isEqualTo(new ShortOutputs(2, 4, 290, 384));
    assertThat(ServerNotices.of(s)).containsExactly("2 of 4 requests stopped short of the output asked with "
        + "ignore_eos (the server stopped at 290 of 384 tokens): it may read max_tokens as a total (prompt + output) "
        + "or ignore ignore_eos");
  }

  @Test
  void aRunWithNothingToSayHasNoNotices() {
    RunSummary s = RunSummary.of(TestRuns.run(List.of(streamed(0, 8, 8), streamed(1, 8, 0))));
    assertThat(ServerNotices.of(s)).isEmpty();
    assertThat(s.tokens().shortOutputs()).isEqualTo(new ShortOutputs(0, 1, 0, 0));
  }
}
