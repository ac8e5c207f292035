package io.infermark.core.stream;

import static io.infermark.core.capture.ChunkKind.CONTENT;
import static io.infermark.core.capture.ChunkKind.EMPTY;
import static io.infermark.core.capture.ChunkKind.REASONING;
import static io.infermark.core.capture.ChunkKind.ROLE;
import static io.infermark.core.capture.ChunkKind.TOOL_CALL;
import static io.infermark.core.capture.ChunkKind.USAGE;
import static io.infermark.core.stream.Feeding.allSplits;
import static io.infermark.core.stream.Feeding.fixture;
import static io.infermark.core.stream.Feeding.sseEventCount;
import static io.infermark.core.stream.Feeding.sseEventEnds;
import static io.infermark.core.stream.Feeding.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Usage;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class AnthropicDialectTest {

  private static final StreamDialect DIALECT = StreamDialect.ANTHROPIC;

  private static byte[] events(String... typeAndData) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < typeAndData.length; i += 2) {
      sb.append("event: ").append(typeAndData[i]).append("\ndata: ").append(typeAndData[i + 1]).append("\n\n");
    }
    return utf8(sb.toString());
  }

  private static final String START = "{\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\","
      + "\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}";
  private static final String STOP = "{\"type\":\"message_stop\"}";

  @Test
  void basicMessageHasRoleThreeTextChunksUsageAndStopAndIgnoresPing() {
    byte[] body = fixture("anthropic-messages-basic.txt");
    assertThat(sseEventCount(body)).isEqualTo(9);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).containsExactly(ROLE, EMPTY, CONTENT, CONTENT, CONTENT, EMPTY, USAGE, EMPTY);
    assertThat(r.content()).isEqualTo("Hello there!");
    assertThat(r.finishReasons).containsExactly("end_turn");
    // message_start's output_tokens is a placeholder and is not reported as completion.
    assertThat(r.usages.get(0)).isEqualTo(Usage.builder().promptTokens(11).build());
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(11).completionTokens(6).build());
    assertThat(r.completed()).isTrue();
    // The ping (third event) produced no chunk; message_stop's chunk and completion share its time.
    long[] ends = sseEventEnds(body).stream().mapToLong(Long::longValue).toArray();
    assertThat(r.chunkTimes()).containsExactly(ends[0], ends[1], ends[3], ends[4], ends[5], ends[6], ends[7], ends[8]);
    assertThat(r.completedAt()).isEqualTo(ends[8]);
  }

  @Test
  void toolUseBlockIsToolCallFromItsStartIncludingTheEmptyFirstJsonDelta() {
    byte[] body = fixture("anthropic-messages-tool-use.txt");
    assertThat(sseEventCount(body)).isEqualTo(15);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).containsExactly(ROLE, EMPTY, CONTENT, CONTENT, EMPTY,
        TOOL_CALL, TOOL_CALL, TOOL_CALL, TOOL_CALL, TOOL_CALL, TOOL_CALL, EMPTY, USAGE, EMPTY);
    assertThat(r.content()).isEqualTo("I'll check the current weather in Paris for you.");
    assertThat(r.tool(1)).hasSize(6);
    assertThat(r.tool(1).get(0)).isEqualTo(
        new RecordingObserver.ToolFragment(1, "toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", ""));
    assertThat(r.tool(1).get(1)).isEqualTo(new RecordingObserver.ToolFragment(1, "", "", ""));
    assertThat(r.toolArguments(1)).isEqualTo("{\"location\": \"Paris\"}");
    assertThat(r.toolFragments).allMatch(f -> f.index() == 1);
    assertThat(r.finishReasons).containsExactly("tool_use");
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(377).completionTokens(65).cachedPromptTokens(0)
        .build());
    assertThat(r.completed()).isTrue();
  }

  @Test
  void thinkingDeltaIsReasoningAndSignatureDeltaIsEmpty() {
    RecordingObserver r = allSplits(DIALECT, events(
        "message_start", START,
        "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
            + "{\"type\":\"thinking\",\"thinking\":\"\"}}",
        "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
            + "{\"type\":\"thinking_delta\",\"thinking\":\"Let me think\"}}",
        "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
            + "{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM\"}}",
        "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}",
        "message_stop", STOP));
    assertThat(r.kinds()).containsExactly(ROLE, EMPTY, REASONING, EMPTY, EMPTY, EMPTY);
    assertThat(r.reasoning()).isEqualTo("Let me think");
    assertThat(r.content()).isEmpty();
  }

  @Test
  void thinkingTokensOfTheOutputDetailsAreReasoningTokens() {
    RecordingObserver r = allSplits(DIALECT, events(
        "message_start", START,
        "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
            + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":120,"
            + "\"output_tokens_details\":{\"thinking_tokens\":85}}}",
        "message_stop", STOP));
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(10).completionTokens(120).reasoningTokens(85)
        .build());
  }

  @Test
  void cachedInputCountsAsPartOfThePrompt() {
    RecordingObserver r = allSplits(DIALECT, events(
        "message_start", "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,"
            + "\"cache_creation_input_tokens\":100,\"cache_read_input_tokens\":2000,\"output_tokens\":1}}}",
        "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"},"
            + "\"usage\":{\"output_tokens\":3}}",
        "message_stop", STOP));
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(2105).completionTokens(3)
        .cachedPromptTokens(2000).build());
    assertThat(r.finishReasons).containsExactly("max_tokens");
  }

  @Test
  void rightPaddedPayloadsParse() {
    RecordingObserver r = allSplits(DIALECT, events(
        "message_start", START + "      ",
        "content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
            + "{\"type\":\"text_delta\",\"text\":\"Hi\"}}                 ",
        "message_stop", STOP + "   "));
    assertThat(r.kinds()).containsExactly(ROLE, CONTENT, EMPTY);
    assertThat(r.completed()).isTrue();
  }

  @Test
  void typeFromJsonIsUsedWhenTheEventLineIsMissing() {
    RecordingObserver r = allSplits(DIALECT, OpenAiDialectTest.sse(START,
        "{\"type\":\"ping\"}",
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}",
        STOP));
    assertThat(r.kinds()).containsExactly(ROLE, CONTENT, EMPTY);
    assertThat(r.completed()).isTrue();
  }

  @Test
  void errorEventIsAStreamErrorWithTypeAndMessage() {
    RecordingObserver r = allSplits(DIALECT, events(
        "message_start", START,
        "error", "{\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}",
        "message_stop", STOP));
    assertThat(r.kinds()).containsExactly(ROLE);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(r.failure().message()).isEqualTo("overloaded_error: Overloaded");
    assertThat(r.completed()).isFalse();
  }

  @Test
  void unknownEventTypesAreIgnored() {
    RecordingObserver r = allSplits(DIALECT, events(
        "message_start", START,
        "future_event", "{\"type\":\"future_event\",\"x\":1}",
        "message_stop", STOP));
    assertThat(r.kinds()).containsExactly(ROLE, EMPTY);
    assertThat(r.completed()).isTrue();
  }

  @Test
  void eofBeforeMessageStopIsAMalformedStream() {
    byte[] body = events("message_start", START);
    RecordingObserver r = allSplits(DIALECT, body);
    assertThat(r.kinds()).containsExactly(ROLE);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failure().message()).isEqualTo("stream ended before message_stop");
  }

  @Test
  void messageStopWithoutTheFinalBlankLineIsDiscardedAsTheSseSpecRequires() {
    byte[] full = fixture("anthropic-messages-basic.txt");
    byte[] original = Arrays.copyOf(full, full.length - 1); // the SDK file ends without the blank line
    RecordingObserver r = allSplits(DIALECT, original);
    assertThat(r.count(CONTENT)).isEqualTo(3);
    assertThat(r.kinds()).endsWith(USAGE);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
  }

  @Test
  void invalidJsonIsAMalformedStream() {
    RecordingObserver r = allSplits(DIALECT, events("message_start", "{\"type\":\"message_start\","));
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
  }
}
