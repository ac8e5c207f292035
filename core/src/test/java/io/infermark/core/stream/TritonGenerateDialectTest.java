package io.infermark.core.stream;

import static io.infermark.core.capture.ChunkKind.CONTENT;
import static io.infermark.core.capture.ChunkKind.EMPTY;
import static io.infermark.core.stream.Feeding.allSplits;
import static io.infermark.core.stream.Feeding.fixture;
import static io.infermark.core.stream.Feeding.sseEventCount;
import static io.infermark.core.stream.Feeding.sseEventEnds;
import static io.infermark.core.stream.OpenAiDialectTest.sse;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ErrorCategory;
import org.junit.jupiter.api.Test;

/** Decoding Triton's generate_stream. */
class TritonGenerateDialectTest {
  private static final StreamDialect DIALECT = StreamDialect.TRITON_GENERATE;

  @Test
  void mockLlmStreamIsThreeContentChunksCompletedAtEof() {
    byte[] body = fixture("triton-generate_stream-mock_llm.txt");
    assertThat(sseEventCount(body)).isEqualTo(3);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).containsExactly(CONTENT, CONTENT, CONTENT);
    assertThat(r.content()).isEqualTo("hello worldhello worldhello world");
    assertThat(r.usages).isEmpty();
    assertThat(r.finishReasons).isEmpty();
    assertThat(r.chunkTimes()).isEqualTo(sseEventEnds(body));
    assertThat(r.completedAt()).isEqualTo(body.length + 1L);
  }

  @Test
  void textOutputIsContentAndEmptyTextIsEmpty() {
    RecordingObserver r = allSplits(DIALECT, sse(
        "{\"model_name\":\"ensemble\",\"model_version\":\"1\",\"sequence_end\":false,\"text_output\":\"Hi\"}",
        "{\"text_output\":[\"!\"]}",
        "{\"text_output\":\"\"}"));
    assertThat(r.kinds()).containsExactly(CONTENT, CONTENT, EMPTY);
    assertThat(r.content()).isEqualTo("Hi!");
  }

  @Test
  void numOutputTokensIsTheEventsTokenCountAsANumberOrAOneElementArray() {
    RecordingObserver r = allSplits(DIALECT, sse(
        "{\"model_name\":\"vllm_model\",\"model_version\":\"1\",\"num_output_tokens\":8,\"text_output\":\" a b c d e f g h\"}",
        "{\"num_output_tokens\":[3],\"text_output\":[\" i j k\"]}",
        "{\"text_output\":\" l\",\"num_output_tokens\":1}",
        "{\"num_output_tokens\":0,\"text_output\":\"\"}"));
    assertThat(r.kinds()).containsExactly(CONTENT, CONTENT, CONTENT, EMPTY);
    assertThat(r.tokens()).containsExactly(8, 3, 1, 0);
    assertThat(r.content()).isEqualTo(" a b c d e f g h i j k l");
  }

  @Test
  void anEventWithoutAUsableCountHasUnknownTokens() {
    RecordingObserver r = allSplits(DIALECT, sse(
        "{\"text_output\":\"a\"}",
        "{\"num_output_tokens\":\"2\",\"text_output\":\"b\"}",
        "{\"num_output_tokens\":[],\"text_output\":\"c\"}",
        "{\"num_output_tokens\":-1,\"text_output\":\"d\"}"));
    assertThat(r.kinds()).containsExactly(CONTENT, CONTENT, CONTENT, CONTENT);
    assertThat(r.tokens()).containsOnly(io.infermark.core.capture.ChunkTimeline.UNKNOWN_TOKENS);
    assertThat(r.content()).isEqualTo("abcd");
  }

  @Test
  void errorEventIsAStreamError() {
    RecordingObserver r = allSplits(DIALECT, sse("{\"TEXT\":\"a\"}", "{\"error\":\"in ensemble 'x', failed\"}"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(r.failure().message()).isEqualTo("in ensemble 'x', failed");
  }
}
