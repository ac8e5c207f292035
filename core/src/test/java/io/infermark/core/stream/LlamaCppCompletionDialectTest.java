package io.infermark.core.stream;

import static io.infermark.core.capture.ChunkKind.CONTENT;
import static io.infermark.core.capture.ChunkKind.EMPTY;
import static io.infermark.core.capture.ChunkTimeline.UNKNOWN_TOKENS;
import static io.infermark.core.stream.Feeding.allSplits;
import static io.infermark.core.stream.Feeding.fixture;
import static io.infermark.core.stream.Feeding.sseEventCount;
import static io.infermark.core.stream.Feeding.sseEventEnds;
import static io.infermark.core.stream.OpenAiDialectTest.sse;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Usage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Decoding llama.cpp's native /completion stream. */
class LlamaCppCompletionDialectTest {
  private static final StreamDialect DIALECT = StreamDialect.LLAMACPP_COMPLETION;

  @Test
  void nativeStreamHasThreeContentChunksAHeldBackEmptyOneAndAStopEvent() {
    byte[] body = fixture("llamacpp-completion-native-stream.txt");
    assertThat(sseEventCount(body)).isEqualTo(5);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).containsExactly(CONTENT, CONTENT, CONTENT, EMPTY, EMPTY);
    assertThat(r.tokens()).allMatch(t -> t == UNKNOWN_TOKENS);
    assertThat(r.content()).isEqualTo(" the planet Mars");
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(16).completionTokens(4).build());
    assertThat(r.finishReasons).containsExactly("word");
    // timings come on the 4th partial and again on the final event
    assertThat(r.serverTimings.get("timings.prompt_n")).containsExactly(16.0, 16.0);
    assertThat(r.serverTimings.get("timings.prompt_ms")).containsExactly(209.562, 209.562);
    assertThat(r.serverTimings.get("timings.predicted_n")).containsExactly(4.0, 4.0);
    assertThat(r.serverTimings.get("timings.predicted_ms")).containsExactly(62.882, 62.882);
    assertThat(r.serverTimings.get("timings.predicted_per_second"))
        .containsExactly(63.611208294901566, 63.611208294901566);
    assertThat(r.serverTimings).hasSize(8);
    List<Long> ends = sseEventEnds(body);
    assertThat(r.chunkTimes()).isEqualTo(ends);
    assertThat(r.completedAt()).isEqualTo(ends.get(4));
  }

  @Test
  void tokensArrayGivesPerChunkTokenCounts() {
    RecordingObserver r = allSplits(DIALECT, sse(
        "{\"index\":0,\"content\":\"Hello\",\"tokens\":[9906],\"stop\":false}",
        "{\"index\":0,\"content\":\" wor\\u00e9\",\"tokens\":[1917,2],\"stop\":false}",
        "{\"index\":0,\"content\":\"\",\"tokens\":[],\"stop\":true,\"stop_type\":\"eos\","
            + "\"tokens_predicted\":3,\"tokens_evaluated\":5}"));
    assertThat(r.kinds()).containsExactly(CONTENT, CONTENT, EMPTY);
    assertThat(r.tokens()).containsExactly(1, 2, 0);
    assertThat(r.content()).isEqualTo("Hello woré");
    assertThat(r.finishReasons).containsExactly("eos");
    assertThat(r.completed()).isTrue();
  }

  @Test
  void legacyStopFlagsGiveTheFinishReason() {
    RecordingObserver r = allSplits(DIALECT, sse(
        "{\"content\":\"\",\"stop\":true,\"stopped_eos\":false,\"stopped_limit\":true,\"stopped_word\":false}"));
    assertThat(r.finishReasons).containsExactly("limit");
  }

  @Test
  void errorEventIsAStreamError() {
    RecordingObserver r = allSplits(DIALECT, sse("{\"content\":\"a\",\"stop\":false}",
        "{\"error\":{\"code\":500,\"message\":\"slot unavailable\",\"type\":\"unavailable_error\"}}"));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.failure().message()).isEqualTo("unavailable_error: slot unavailable");
  }

  @Test
  void eofBeforeTheStopEventIsAMalformedStream() {
    RecordingObserver r = allSplits(DIALECT, sse("{\"content\":\"a\",\"stop\":false}"));
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failure().message()).isEqualTo("stream ended before the stop:true event");
  }
}
