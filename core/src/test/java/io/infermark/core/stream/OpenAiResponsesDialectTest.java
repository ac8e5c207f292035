package io.infermark.core.stream;

import static io.infermark.core.capture.ChunkKind.CONTENT;
import static io.infermark.core.capture.ChunkKind.EMPTY;
import static io.infermark.core.capture.ChunkKind.REASONING;
import static io.infermark.core.capture.ChunkKind.ROLE;
import static io.infermark.core.capture.ChunkKind.TOOL_CALL;
import static io.infermark.core.capture.ChunkKind.USAGE;
import static io.infermark.core.stream.Feeding.allSplits;
import static io.infermark.core.stream.Feeding.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Usage;
import org.junit.jupiter.api.Test;

/** Decoding OpenAI's Responses API stream, in the event shapes of its API reference. */
class OpenAiResponsesDialectTest {

  private static final StreamDialect DIALECT = StreamDialect.OPENAI_RESPONSES;

  /** Each payload framed with its {@code event:} line, taken from its {@code type}. */
  private static byte[] events(String... payloads) {
    StringBuilder sb = new StringBuilder();
    for (String p : payloads) {
      String type = p.replaceFirst("^\\{\"type\":\"([^\"]+)\".*$", "$1");
      sb.append("event: ").append(type).append("\ndata: ").append(p).append("\n\n");
    }
    return utf8(sb.toString());
  }

  private static final String CREATED = "{\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":"
      + "\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[],\"usage\":null}}";

  private static String delta(String type, String text) {
    return "{\"type\":\"" + type + "\",\"sequence_number\":1,\"item_id\":\"i\",\"output_index\":0,\"content_index\":0,"
        + "\"delta\":\"" + text + "\"}";
  }

  private static final String COMPLETED = "{\"type\":\"response.completed\",\"sequence_number\":9,\"response\":{"
      + "\"id\":\"resp_1\",\"status\":\"completed\",\"usage\":{\"input_tokens\":36,\"input_tokens_details\":"
      + "{\"cached_tokens\":4},\"output_tokens\":87,\"output_tokens_details\":{\"reasoning_tokens\":50},"
      + "\"total_tokens\":123}}}";

  @Test
  void textAndReasoningDeltasAreChunksAndCompletedGivesUsage() {
    RecordingObserver r = allSplits(DIALECT, events(CREATED,
        "{\"type\":\"response.in_progress\",\"sequence_number\":1,\"response\":{\"status\":\"in_progress\"}}",
        delta("response.reasoning_text.delta", "Think"),
        delta("response.output_text.delta", "Hello"),
        delta("response.output_text.delta", " world"),
        "{\"type\":\"response.output_text.done\",\"sequence_number\":5,\"text\":\"Hello world\"}",
        COMPLETED));
    assertThat(r.kinds()).containsExactly(ROLE, EMPTY, REASONING, CONTENT, CONTENT, EMPTY, USAGE);
    assertThat(r.content()).isEqualTo("Hello world");
    assertThat(r.reasoning()).isEqualTo("Think");
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(36).completionTokens(87).totalTokens(123)
        .reasoningTokens(50).cachedPromptTokens(4).build());
    assertThat(r.finishReasons).containsExactly("stop");
    assertThat(r.completed()).isTrue();
  }

  @Test
  void aFunctionCallIsToolCallChunksWithItsNameAndArguments() {
    RecordingObserver r = allSplits(DIALECT, events(CREATED,
        "{\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,\"item\":{\"type\":"
            + "\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"\"}}",
        delta("response.function_call_arguments.delta", "{\\\"city\\\":"),
        delta("response.function_call_arguments.delta", "\\\"Paris\\\"}"),
        COMPLETED));
    assertThat(r.kinds()).containsExactly(ROLE, TOOL_CALL, TOOL_CALL, TOOL_CALL, USAGE);
    assertThat(r.tool(0)).extracting(RecordingObserver.ToolFragment::name).contains("get_weather");
    assertThat(String.join("", r.tool(0).stream().map(RecordingObserver.ToolFragment::arguments).toList()))
        .isEqualTo("{\"city\":\"Paris\"}");
  }

  @Test
  void anIncompleteResponseEndsWithItsReason() {
    RecordingObserver r = allSplits(DIALECT, events(CREATED, delta("response.output_text.delta", "Hi"),
        "{\"type\":\"response.incomplete\",\"sequence_number\":3,\"response\":{\"status\":\"incomplete\","
            + "\"incomplete_details\":{\"reason\":\"max_output_tokens\"},\"usage\":{\"input_tokens\":3,"
            + "\"output_tokens\":1,\"total_tokens\":4}}}"));
    assertThat(r.finishReasons).containsExactly("max_output_tokens");
    assertThat(r.usage().completionTokens()).hasValue(1);
    assertThat(r.completed()).isTrue();
  }

  @Test
  void failedResponsesAndErrorEventsAreStreamErrors() {
    RecordingObserver failed = allSplits(DIALECT, events(CREATED,
        "{\"type\":\"response.failed\",\"sequence_number\":2,\"response\":{\"status\":\"failed\",\"error\":"
            + "{\"code\":\"server_error\",\"message\":\"The model failed.\"}}}"));
    assertThat(failed.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    RecordingObserver error = allSplits(DIALECT, events(CREATED,
        "{\"type\":\"error\",\"code\":\"ERR_SOMETHING\",\"message\":\"Something went wrong\",\"param\":null,"
            + "\"sequence_number\":1}"));
    assertThat(error.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(error.failure().message()).contains("Something went wrong");
  }

  @Test
  void eofBeforeATerminalEventIsMalformed() {
    RecordingObserver r = allSplits(DIALECT, events(CREATED, delta("response.output_text.delta", "Hi")));
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
  }
}
