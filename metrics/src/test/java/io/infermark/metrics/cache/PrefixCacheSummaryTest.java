package io.infermark.metrics.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.request.Prompt;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.core.tokens.TokenCounter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The prefix-cache accounting on hand-built records, every ratio computed by hand. */
class PrefixCacheSummaryTest {

  private static RequestRecord record(String id, int ttftMs, Usage usage, Map<String, Double> timings,
      Map<String, String> tags) {
    return RequestRecord.builder().requestId(id).httpStatus(200).tags(tags).usage(usage).serverTimings(timings)
        .chunks(ChunkTimeline.builder().add(ttftMs * 1_000_000L, ChunkKind.CONTENT, 1).build())
        .endOffsetNanos(ttftMs * 1_000_000L + 1).build();
  }

  private static RequestRecord openAi(String id, int ttftMs, int prompt, int cached, String session, String turn) {
    return record(id, ttftMs, Usage.builder().promptTokens(prompt).completionTokens(1).cachedPromptTokens(cached).build(),
        Map.of(), Map.of("session", session, "turn", turn));
  }

  @Test
  void hitRatioIsCachedOverPromptTokensOfTheReportingRequests() {
    List<RequestRecord> records = List.of(
        openAi("a", 100, 100, 0, "s0", "0"),
        openAi("b", 20, 150, 96, "s0", "1"),
        openAi("c", 90, 100, 0, "s1", "0"),
        openAi("d", 30, 160, 144, "s1", "1"),
        // reports no cached count: counted as a request, not in the ratio
        record("e", 50, Usage.builder().promptTokens(40).completionTokens(1).build(), Map.of(), Map.of()));
    PrefixCacheSummary s = PrefixCacheSummary.of(records);
    PrefixCacheSummary.Group run = s.run();
    assertThat(run.requests()).isEqualTo(5);
    assertThat(run.reporting()).isEqualTo(4);
    assertThat(run.hits()).isEqualTo(2);
    assertThat(run.misses()).isEqualTo(2);
    assertThat(run.cachedTokens()).isEqualTo(240);
    assertThat(run.promptTokens()).isEqualTo(510);
    assertThat(run.hitRatio()).hasValue(240.0 / 510);
    assertThat(run.idealRatio()).isEmpty();
    assertThat(s.bySession().keySet()).containsExactly("s0", "s1");
    assertThat(s.bySession().get("s1").hitRatio()).hasValue(144.0 / 260);
    assertThat(s.byTurn().get("0").hitRatio()).hasValue(0.0);
    assertThat(s.byTurn().get("1").hitRatio()).hasValue(240.0 / 310);
    assertThat(s.ttftHit().count()).isEqualTo(2);
    assertThat(s.ttftHit().p50()).hasValue(25.0);
    assertThat(s.ttftMiss().p50()).hasValue(95.0);
    assertThat(s.idealTokenizer()).isEmpty();
    assertThat(s.isEmpty()).isFalse();
  }

  @Test
  void llamaCppTimingsGiveCachedAndPromptTokensWithoutUsage() {
    RequestRecord r = record("a", 10, Usage.NONE, Map.of("timings.cache_n", 36.0, "timings.prompt_n", 1.0), Map.of());
    assertThat(PrefixCacheSummary.cachedPromptTokens(r)).hasValue(36);
    assertThat(PrefixCacheSummary.promptTokens(r)).hasValue(37);
    // usage wins where the server sent both (llama.cpp's OpenAI endpoints with include_usage)
    RequestRecord both = record("b", 10, Usage.builder().promptTokens(37).cachedPromptTokens(36).build(),
        Map.of("timings.cache_n", 36.0, "timings.prompt_n", 1.0), Map.of());
    assertThat(PrefixCacheSummary.cachedPromptTokens(both)).hasValue(36);
    assertThat(PrefixCacheSummary.promptTokens(both)).hasValue(37);
    assertThat(PrefixCacheSummary.cachedPromptTokens(record("c", 10, Usage.NONE, Map.of(), Map.of()))).isEmpty();
  }

  @Test
  void warmupAndFailedRequestsAreNotCounted() {
    RequestRecord warm = openAi("w", 10, 100, 50, "s", "0").toBuilder().warmup(true).build();
    RequestRecord failed = openAi("f", 10, 100, 50, "s", "0").toBuilder()
        .failure(Optional.of(Failure.of(ErrorCategory.CONNECT, "refused"))).build();
    PrefixCacheSummary s = PrefixCacheSummary.of(List.of(warm, failed));
    assertThat(s.run().requests()).isZero();
    assertThat(s.isEmpty()).isTrue();
  }

  @Test
  void theIdealRatioJoinsTheTrackerByRequestId() {
    TokenCounter words = new TokenCounter() {
      @Override
      public int count(String text) {
        String t = text.strip();
        return t.isEmpty() ? 0 : t.split("\\s+").length;
      }

      @Override
      public String name() {
        return "words";
      }
    };
    PromptReuse reuse = PromptReuse.counting(words);
    reuse.record("w", Prompt.user("doc doc doc q0")); // warmup: earlier, but not counted
    reuse.record("a", Prompt.user("doc doc doc q1"));
    reuse.record("b", Prompt.user("doc doc doc q2"));
    List<RequestRecord> records = List.of(openAi("w", 10, 4, 0, "s", "0").toBuilder().warmup(true).build(),
        openAi("a", 10, 4, 3, "s", "1"), openAi("b", 10, 4, 3, "s", "2"));
    PrefixCacheSummary s = PrefixCacheSummary.of(records, QuantileMethod.LINEAR, Optional.of(reuse));
    assertThat(s.run().idealRequests()).isEqualTo(2);
    assertThat(s.run().idealSharedTokens()).isEqualTo(6);
    assertThat(s.run().idealPromptTokens()).isEqualTo(8);
    assertThat(s.run().idealRatio()).hasValue(0.75);
    assertThat(s.run().hitRatio()).hasValue(0.75);
    assertThat(s.idealTokenizer()).contains("words");
  }
}
