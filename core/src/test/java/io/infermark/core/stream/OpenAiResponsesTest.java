package io.infermark.core.stream;

import static io.infermark.core.capture.ChunkKind.CONTENT;
import static io.infermark.core.capture.ChunkKind.EMPTY;
import static io.infermark.core.capture.ChunkKind.REASONING;
import static io.infermark.core.capture.ChunkKind.TOOL_CALL;
import static io.infermark.core.capture.ChunkTimeline.UNKNOWN_TOKENS;
import static io.infermark.core.stream.Feeding.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Usage;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenAiResponsesTest {

  private static RecordingObserver report(String body, boolean wantsText) {
    RecordingObserver r = new RecordingObserver(wantsText);
    OpenAiResponses.report(utf8(body), r, 1234);
    return r;
  }

  private static final String USAGE = ",\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":12,\"total_tokens\":21,"
      + "\"completion_tokens_details\":{\"reasoning_tokens\":4},\"prompt_tokens_details\":{\"cached_tokens\":2}}";

  @Test
  void chatResponseIsOneContentChunkWithUsageTokens() {
    RecordingObserver r = report("{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
        + "{\"role\":\"assistant\",\"content\":\"Hello!\",\"refusal\":null},\"finish_reason\":\"stop\"}]" + USAGE
        + "}", true);
    assertThat(r.calls).containsExactly(
        "chunk CONTENT 12 @1234",
        "text CONTENT Hello!",
        "usage " + Usage.builder().promptTokens(9).completionTokens(12).totalTokens(21).reasoningTokens(4)
            .cachedPromptTokens(2).build(),
        "finish stop",
        "complete @1234");
  }

  @Test
  void toolCallResponseReportsEachCall() {
    RecordingObserver r = report("{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,"
        + "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
        + "\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}},{\"id\":\"call_2\",\"type\":\"function\",\"function\":"
        + "{\"name\":\"noop\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}", true);
    assertThat(r.kinds()).containsExactly(TOOL_CALL);
    assertThat(r.tokens()).containsExactly(UNKNOWN_TOKENS);
    assertThat(r.toolFragments).containsExactly(
        new RecordingObserver.ToolFragment(0, "call_1", "get_weather", "{\"city\":\"Paris\"}"),
        new RecordingObserver.ToolFragment(1, "call_2", "noop", "{}"));
    assertThat(r.finishReasons).containsExactly("tool_calls");
    assertThat(r.completed()).isTrue();
  }

  @Test
  void reasoningOnlyIsReasoningAndReasoningWithContentIsContent() {
    RecordingObserver onlyReasoning = report("{\"choices\":[{\"message\":{\"content\":\"\","
        + "\"reasoning_content\":\"hmm\"},\"finish_reason\":\"length\"}]}", true);
    assertThat(onlyReasoning.kinds()).containsExactly(REASONING);
    assertThat(onlyReasoning.reasoning()).isEqualTo("hmm");

    RecordingObserver both = report("{\"choices\":[{\"message\":{\"content\":\"4\",\"reasoning\":\"2+2\"},"
        + "\"finish_reason\":\"stop\"}]}", true);
    assertThat(both.kinds()).containsExactly(CONTENT);
    assertThat(both.untimedCalls).containsSubsequence("text REASONING 2+2", "text CONTENT 4");
  }

  @Test
  void legacyCompletionTextIsContentAndNothingGeneratedIsEmpty() {
    assertThat(report("{\"object\":\"text_completion\",\"choices\":[{\"text\":\" John\",\"index\":0,"
        + "\"finish_reason\":\"length\"}]}", true).content()).isEqualTo(" John");
    assertThat(report("{\"choices\":[{\"message\":{\"content\":\"\"},\"finish_reason\":\"length\"}]}", true).kinds())
        .containsExactly(EMPTY);
  }

  @Test
  void textIsNotReportedWhenTheObserverDoesNotWantIt() {
    RecordingObserver r = report("{\"choices\":[{\"message\":{\"content\":\"Hello\"},\"finish_reason\":\"stop\"}]}",
        false);
    assertThat(r.untimedCalls).containsExactly("chunk CONTENT -1", "finish stop", "complete");
  }

  @Test
  void llamaCppTimingsAreReported() {
    RecordingObserver r = report("{\"choices\":[{\"message\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}],"
        + "\"timings\":{\"prompt_n\":3,\"predicted_ms\":1.5,\"note\":\"x\"}}", false);
    assertThat(r.serverTimings).containsEntry("timings.prompt_n", List.of(3.0))
        .containsEntry("timings.predicted_ms", List.of(1.5)).hasSize(2);
  }

  @Test
  void errorObjectIsAStreamError() {
    RecordingObserver r = report("{\"error\":{\"message\":\"Rate limit\",\"type\":\"rate_limit_error\"}}", true);
    assertThat(r.chunks).isEmpty();
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(r.failure().message()).isEqualTo("rate_limit_error: Rate limit");
    assertThat(r.failedAt()).isEqualTo(1234);
  }

  @Test
  void invalidEmptyOrChoicelessBodiesAreMalformed() {
    for (String body : new String[] {"{\"choices\":[", "", "[1]", "{\"id\":\"x\"}", "<html>"}) {
      RecordingObserver r = report(body, true);
      assertThat(r.chunks).as(body).isEmpty();
      assertThat(r.failure().category()).as(body).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    }
    assertThat(report("{\"choices\":[", true).failure().message()).startsWith("invalid JSON response:");
  }

  @Test
  void nullArgumentsAreRejected() {
    assertThatThrownBy(() -> OpenAiResponses.report(null, new RecordingObserver(false), 0))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("body");
    assertThatThrownBy(() -> OpenAiResponses.report(new byte[0], null, 0))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("observer");
  }
}
