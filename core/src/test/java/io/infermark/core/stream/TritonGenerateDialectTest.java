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
  void errorEventIsAStreamError() {
    RecordingObserver r = allSplits(DIALECT, sse("{\"TEXT\":\"a\"}", "{\"error\":\"in ensemble 'x', failed\"}"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(r.failure().message()).isEqualTo("in ensemble 'x', failed");
  }
}
