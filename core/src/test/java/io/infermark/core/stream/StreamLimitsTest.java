package io.infermark.core.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ErrorCategory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A server that never ends a line or an event fails its request instead of filling the heap. */
class StreamLimitsTest {

  private static final StreamLimits SMALL = new StreamLimits(1024, 4096);

  /** Feeds {@code total} bytes of {@code filler} in 512-byte reads after {@code prefix}; true if the decoder stopped. */
  private static RecordingObserver feedEndless(StreamDialect dialect, String prefix, byte filler, long total) {
    RecordingObserver r = new RecordingObserver(false);
    StreamDecoder d = dialect.newDecoder(r, SMALL);
    byte[] p = prefix.getBytes(StandardCharsets.UTF_8);
    d.feed(p, 0, p.length, 1);
    byte[] chunk = new byte[512];
    Arrays.fill(chunk, filler);
    for (long fed = 0; fed < total && !d.finished(); fed += chunk.length) {
      d.feed(chunk, 0, chunk.length, 2);
    }
    return r;
  }

  @Test
  void anEndlessSseLineIsAMalformedStreamNamingTheLimit() {
    RecordingObserver r = feedEndless(StreamDialect.OPENAI, "data: {\"choices\":[{\"delta\":{\"content\":\"", (byte) 'a',
        1 << 20);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failure().message()).isEqualTo("line exceeds 1024 bytes");
  }

  @Test
  void anEndlessEventOfShortDataLinesIsAMalformedStream() {
    RecordingObserver r = new RecordingObserver(false);
    StreamDecoder d = StreamDialect.OPENAI.newDecoder(r, SMALL);
    byte[] line = "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n".getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < 10_000 && !d.finished(); i++) {
      d.feed(line, 0, line.length, i);
    }
    assertThat(d.finished()).isTrue();
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failure().message()).isEqualTo("event data exceeds 4096 bytes");
  }

  @Test
  void anEndlessNdjsonLineIsAMalformedStream() {
    RecordingObserver r = feedEndless(StreamDialect.OLLAMA_NDJSON, "{\"response\":\"", (byte) 'b', 1 << 20);
    assertThat(r.failure().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failure().message()).isEqualTo("line exceeds 1024 bytes");
  }

  @Test
  void everyDialectStopsAnEndlessLine() {
    for (StreamDialect dialect : StreamDialect.values()) {
      RecordingObserver r = feedEndless(dialect, "data: {\"x\":\"", (byte) 'c', 1 << 20);
      assertThat(r.failure()).as(dialect.name()).isNotNull();
      assertThat(r.failure().category()).as(dialect.name()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    }
  }

  @Test
  void linesWithinTheLimitStillDecode() {
    RecordingObserver r = new RecordingObserver(false);
    StreamDecoder d = StreamDialect.OPENAI.newDecoder(r, new StreamLimits(200, 400));
    byte[] body = ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
        .getBytes(StandardCharsets.UTF_8);
    for (byte b : body) {
      d.feed(new byte[] {b}, 0, 1, 5);
    }
    assertThat(d.finished()).isTrue();
    assertThat(r.failure()).isNull();
    assertThat(r.chunks).hasSize(1);
  }

  @Test
  void limitsMustBePositive() {
    assertThatThrownBy(() -> new StreamLimits(0, 1)).hasMessageContaining("maxLineBytes");
    assertThatThrownBy(() -> new StreamLimits(1, -1)).hasMessageContaining("maxEventBytes");
  }
}
