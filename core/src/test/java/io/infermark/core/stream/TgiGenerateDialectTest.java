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
import io.infermark.core.capture.Usage;
import java.util.Collections;
import org.junit.jupiter.api.Test;

/** Decoding TGI's native /generate_stream stream. */
class TgiGenerateDialectTest {
  private static final StreamDialect DIALECT = StreamDialect.TGI_GENERATE;

  private String token(int index, String text, boolean special, String generated) {
    return "{\"index\":" + index + ",\"token\":{\"id\":1,\"text\":\"" + text + "\",\"logprob\":-0.5,\"special\":"
        + special + "},\"generated_text\":" + generated + ",\"details\":null}";
  }

  @Test
  void everyTokenEventIsOneTokenAndTheFinalEventGivesUsageAndFinishReason() {
    byte[] body = fixture("tgi-generate_stream-details.txt");
    assertThat(sseEventCount(body)).isEqualTo(10);
    RecordingObserver r = allSplits(DIALECT, body);

    assertThat(r.kinds()).isEqualTo(Collections.nCopies(10, CONTENT));
    assertThat(r.tokens()).isEqualTo(Collections.nCopies(10, 1));
    assertThat(r.content()).isEqualTo(" le faire fondre à la casserole avec");
    assertThat(r.usage()).isEqualTo(Usage.builder().promptTokens(11).completionTokens(10).build());
    assertThat(r.finishReasons).containsExactly("length");
    assertThat(r.chunkTimes()).isEqualTo(sseEventEnds(body));
    // No terminator: the stream completes when the body ends.
    assertThat(r.completedAt()).isEqualTo(body.length + 1L);
  }

  @Test
  void specialTokenIsAnEmptyChunkThatStillCountsOneToken() {
    RecordingObserver r = allSplits(DIALECT, sse(
        token(1, "Hi", false, "null"),
        token(2, "</s>", true, "\"Hi\"")));
    assertThat(r.kinds()).containsExactly(CONTENT, EMPTY);
    assertThat(r.tokens()).containsExactly(1, 1);
    assertThat(r.content()).isEqualTo("Hi");
    assertThat(r.usages).isEmpty(); // details were not requested
    assertThat(r.completed()).isTrue();
  }

  @Test
  void eventsAfterTheFinalOneAreIgnored() {
    RecordingObserver r = allSplits(DIALECT, sse(token(1, "a", false, "\"a\""), token(2, "b", false, "null")));
    assertThat(r.kinds()).containsExactly(CONTENT);
    assertThat(r.completed()).isTrue();
  }

  @Test
  void eofBeforeTheFinalEventIsAMalformedStream() {
    RecordingObserver r = allSplits(DIALECT, sse(token(1, "a", false, "null")));
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failure().message()).isEqualTo("stream ended before the event with generated_text");
  }

  @Test
  void errorEventIsAStreamErrorWithItsType() {
    RecordingObserver r = allSplits(DIALECT, sse(
        "{\"error\":\"Input validation error: `inputs` must have less than 1024 tokens.\","
            + "\"error_type\":\"validation\"}"));
    assertThat(r.chunks).isEmpty();
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(r.failure().message())
        .isEqualTo("validation: Input validation error: `inputs` must have less than 1024 tokens.");
  }

  @Test
  void axum06FramingWithoutSpaceAfterDataParses() {
    byte[] body = Feeding.utf8(new String(fixture("tgi-generate_stream-details.txt"),
        java.nio.charset.StandardCharsets.UTF_8).replace("data: ", "data:"));
    RecordingObserver r = allSplits(DIALECT, body);
    assertThat(r.content()).isEqualTo(" le faire fondre à la casserole avec");
    assertThat(r.completed()).isTrue();
  }
  /** TGI's documented stream for 8 text tokens then EOS: {@code generated_tokens} counts the EOS token too. */
  private byte[] eosTerminated(boolean details) {
    String[] events = new String[9];
    StringBuilder text = new StringBuilder();
    for (int i = 1; i <= 8; i++) {
      events[i - 1] = token(i, " w" + i, false, "null");
      text.append(" w").append(i);
    }
    String last = token(9, "</s>", true, "\"" + text + "\"");
    if (details) {
      last = last.replace("\"details\":null",
          "\"details\":{\"finish_reason\":\"eos_token\",\"generated_tokens\":9,\"seed\":null,\"input_length\":5}");
    }
    events[8] = last;
    return sse(events);
  }

  private static io.infermark.core.capture.RequestRecord record(byte[] body) {
    io.infermark.core.capture.TokenTimeline t = io.infermark.core.capture.TokenTimeline.start(() -> 0L);
    StreamDecoder d = DIALECT.newDecoder(t);
    d.feed(body, 0, body.length, 1);
    d.end(2);
    return t.record().orElseThrow();
  }

  @Test
  void theEosTokenCountsInTheStreamedTokensWithoutDetails() {
    io.infermark.core.capture.RequestRecord r = record(eosTerminated(false));
    assertThat(r.chunks().tokenChunkCount()).isEqualTo(8);
    assertThat(r.streamedTokens()).isEqualTo(9);
    assertThat(r.outputTokens()).isEqualTo(9);
    assertThat(r.outputTokensSource()).isEqualTo(io.infermark.core.capture.TokenCountSource.CHUNK_TOKENS);
  }

  @Test
  void withDetailsTheStreamedCountAgreesWithGeneratedTokens() {
    io.infermark.core.capture.RequestRecord r = record(eosTerminated(true));
    assertThat(r.outputTokens()).isEqualTo(9);
    assertThat(r.outputTokensSource()).isEqualTo(io.infermark.core.capture.TokenCountSource.SERVER_USAGE);
    assertThat(r.streamedTokens()).isEqualTo(9);
    assertThat(r.tokenCountsDisagree()).isFalse();
    assertThat(r.finishReason()).contains("eos_token");
  }
}
