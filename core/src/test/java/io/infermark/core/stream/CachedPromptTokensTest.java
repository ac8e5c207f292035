package io.infermark.core.stream;

import static io.infermark.core.stream.Feeding.allSplits;
import static io.infermark.core.stream.OpenAiDialectTest.sse;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.Usage;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Cached prompt tokens as each server family reports them, from payloads a real llama.cpp server (build 9928, see
 * /work/shared/llamacpp/transcripts) and SGLang's serializer wrote: usage {@code prompt_tokens_details.cached_tokens}
 * where sent, and llama.cpp's {@code timings.cache_n} as a server timing (the only count its chat stream without
 * {@code include_usage} and its native {@code /completion} stream give; the metrics read it from there).
 */
class CachedPromptTokensTest {

  @Test
  void llamaCppChatStreamWithoutUsageCarriesCacheNInItsTimings() {
    RecordingObserver r = allSplits(StreamDialect.OPENAI, sse(
        "{\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}],"
            + "\"created\":1796527542,\"id\":\"chatcmpl-q\",\"model\":\"tiny-llama\",\"object\":\"chat.completion.chunk\"}",
        "{\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"content\":\" However\"}}],\"created\":1796527542,"
            + "\"id\":\"chatcmpl-q\",\"model\":\"tiny-llama\",\"object\":\"chat.completion.chunk\"}",
        "{\"choices\":[{\"finish_reason\":\"length\",\"index\":0,\"delta\":{}}],\"created\":1796527542,"
            + "\"id\":\"chatcmpl-q\",\"model\":\"tiny-llama\",\"system_fingerprint\":\"b9928-81ff7ab\","
            + "\"object\":\"chat.completion.chunk\",\"timings\":{\"cache_n\":36,\"prompt_n\":1,\"prompt_ms\":0.756,"
            + "\"prompt_per_token_ms\":0.756,\"prompt_per_second\":1322.7513227513227,\"predicted_n\":8,"
            + "\"predicted_ms\":3.486,\"predicted_per_token_ms\":0.43575,\"predicted_per_second\":2294.8938611589215}}",
        "[DONE]"));
    assertThat(r.usage().cachedPromptTokens()).isEmpty();
    assertThat(r.serverTimings).containsEntry("timings.cache_n", List.of(36.0))
        .containsEntry("timings.prompt_n", List.of(1.0));
  }

  @Test
  void llamaCppCompletionsStreamReportsCachedTokensInUsageAndTimings() {
    RecordingObserver r = allSplits(StreamDialect.OPENAI, sse(
        "{\"choices\":[{\"text\":\" w\",\"index\":0,\"logprobs\":null,\"finish_reason\":null}],\"created\":1796527542,"
            + "\"model\":\"tiny-llama\",\"object\":\"text_completion\",\"id\":\"chatcmpl-S\"}",
        "{\"choices\":[{\"text\":\"\",\"index\":0,\"logprobs\":null,\"finish_reason\":\"length\"}],\"created\":1796527542,"
            + "\"model\":\"tiny-llama\",\"system_fingerprint\":\"b9928-81ff7ab\",\"object\":\"text_completion\","
            + "\"usage\":{\"completion_tokens\":8,\"prompt_tokens\":8,\"total_tokens\":16,\"prompt_tokens_details\":"
            + "{\"cached_tokens\":1}},\"id\":\"chatcmpl-S\",\"timings\":{\"cache_n\":1,\"prompt_n\":7,\"prompt_ms\":1.421,"
            + "\"prompt_per_token_ms\":0.203,\"prompt_per_second\":4926.108374384236,\"predicted_n\":8,"
            + "\"predicted_ms\":4.666,\"predicted_per_token_ms\":0.58325,\"predicted_per_second\":1714.5306472353193}}",
        "[DONE]"));
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(8).completionTokens(8).totalTokens(16)
        .cachedPromptTokens(1).build());
    assertThat(r.serverTimings).containsEntry("timings.cache_n", List.of(1.0));
  }

  @Test
  void llamaCppNativeStopEventCarriesCacheNAndTheWholePromptCount() {
    RecordingObserver r = allSplits(StreamDialect.LLAMACPP_COMPLETION, sse(
        "{\"index\":0,\"content\":\" w\",\"tokens\":[1022],\"stop\":false,\"id_slot\":-1,\"tokens_predicted\":1,"
            + "\"tokens_evaluated\":8}",
        "{\"index\":0,\"content\":\"\",\"tokens\":[],\"id_slot\":3,\"stop\":true,\"model\":\"tiny-llama\","
            + "\"tokens_predicted\":8,\"tokens_evaluated\":8,\"stop_type\":\"limit\",\"stopping_word\":\"\","
            + "\"tokens_cached\":15,\"timings\":{\"cache_n\":7,\"prompt_n\":1,\"prompt_ms\":0.905,"
            + "\"prompt_per_token_ms\":0.905,\"prompt_per_second\":1104.9723756906078,\"predicted_n\":8,"
            + "\"predicted_ms\":3.298,\"predicted_per_token_ms\":0.41225,\"predicted_per_second\":2425.712553062462}}"));
    assertThat(r.usage().promptTokens()).hasValue(8); // tokens_evaluated: cache_n + prompt_n
    assertThat(r.serverTimings).containsEntry("timings.cache_n", List.of(7.0))
        .containsEntry("timings.prompt_n", List.of(1.0));
  }

  @Test
  void sglangUsageWithCacheReportCarriesCachedTokensBesideTopLevelReasoning() {
    // SGLang with --enable-cache-report: pydantic dump, no exclusions, key order prompt, total, completion
    RecordingObserver r = allSplits(StreamDialect.OPENAI, sse(
        "{\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],"
            + "\"usage\":{\"prompt_tokens\":14,\"total_tokens\":22,\"completion_tokens\":8,"
            + "\"prompt_tokens_details\":{\"cached_tokens\":12},\"reasoning_tokens\":0}}",
        "[DONE]"));
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(14).completionTokens(8).totalTokens(22)
        .reasoningTokens(0).cachedPromptTokens(12).build());
  }

  @Test
  void vllmCompletionsUsageChunkCarriesCachedTokens() {
    // vLLM with --enable-prompt-tokens-details: UsageInfo key order prompt, total, completion, then details
    RecordingObserver r = allSplits(StreamDialect.OPENAI, sse(
        "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
            + "\"text\":\" a\",\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}],\"usage\":null}",
        "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[],"
            + "\"usage\":{\"prompt_tokens\":600,\"total_tokens\":601,\"completion_tokens\":1,"
            + "\"prompt_tokens_details\":{\"cached_tokens\":592}}}",
        "[DONE]"));
    assertThat(r.usage().cachedPromptTokens()).hasValue(592);
    assertThat(r.usage().promptTokens()).hasValue(600);
  }
}
