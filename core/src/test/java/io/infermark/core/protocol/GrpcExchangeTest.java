package io.infermark.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.capture.Usage;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.BodyConsumer;
import io.infermark.core.transport.ResponseHead;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How one ModelStreamInfer call's bytes, trailers and statuses become observer events. */
class GrpcExchangeTest {

  /** Records chunks and the outcome. */
  static final class Seen implements StreamObserver {
    final List<long[]> chunks = new ArrayList<>();
    final List<ChunkKind> kinds = new ArrayList<>();
    final StringBuilder text = new StringBuilder();
    Failure failure;
    long completedAt = -1;
    int outcomes;

    @Override
    public void onPhase(Phase phase, long nanoTime) {}

    @Override
    public void onResponseHeaders(int httpStatus, long nanoTime) {}

    @Override
    public void onChunk(long nanoTime, ChunkKind kind, int tokens) {
      chunks.add(new long[] {nanoTime, tokens});
      kinds.add(kind);
    }

    @Override
    public void onText(ChunkKind kind, CharSequence t) {
      text.append(t);
    }

    @Override
    public boolean wantsText() {
      return true;
    }

    @Override
    public void onUsage(Usage usage) {}

    @Override
    public void onFinishReason(String reason) {}

    @Override
    public void onServerTiming(String name, double value) {}

    @Override
    public void onComplete(long nanoTime) {
      completedAt = nanoTime;
      outcomes++;
    }

    @Override
    public void onFailure(Failure f, long nanoTime) {
      failure = f;
      outcomes++;
    }
  }

  private final Seen seen = new Seen();
  private final GrpcExchange call = new GrpcExchange(seen, Clock.system(), Redactor.of(List.of("sk-secret-key")),
      "text_output", 1 << 20);

  private static ResponseHead head(Map<String, String> fields) {
    return name -> Optional.ofNullable(fields.get(name.toLowerCase()));
  }

  private static final ResponseHead GRPC = head(Map.of("content-type", "application/grpc"));

  /** A response carrying {@code text} in raw_output_contents, as Triton sends it. */
  static byte[] response(String text) {
    byte[] t = text.getBytes(StandardCharsets.UTF_8);
    byte[] raw = new byte[4 + t.length];
    raw[0] = (byte) t.length;
    System.arraycopy(t, 0, raw, 4, t.length);
    KServeWire.Writer output = new KServeWire.Writer().string(1, "text_output").string(2, "BYTES")
        .packedVarints(3, 1);
    KServeWire.Writer infer = new KServeWire.Writer().string(1, "ensemble").message(5, output).bytes(6, raw);
    return KServeWire.grpcFrame(new KServeWire.Writer().message(2, infer).toByteArray());
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  @Test
  void eachMessageIsStampedWithTheReadThatCompletedItWhateverTheSplit() {
    byte[] body = concat(response("Hello"), response(" world"));
    BodyConsumer c = call.onResponse(200, GRPC, 0);
    for (int i = 0; i < body.length; i++) {
      assertThat(c.onBytes(body, i, 1, 100 + i)).isFalse();
    }
    c.onTrailers(head(Map.of("grpc-status", "0")), 999);
    c.onEnd(999);

    int first = response("Hello").length;
    assertThat(seen.chunks).extracting(ch -> ch[0]).containsExactly(100L + first - 1, 100L + body.length - 1);
    assertThat(seen.kinds).containsExactly(ChunkKind.CONTENT, ChunkKind.CONTENT);
    assertThat(seen.text).hasToString("Hello world");
    assertThat(seen.completedAt).isEqualTo(999);
    assertThat(seen.outcomes).isEqualTo(1);
  }

  @Test
  void anEmptyTextOutputIsAnEmptyChunk() {
    byte[] body = response("");
    BodyConsumer c = call.onResponse(200, GRPC, 0);
    c.onBytes(body, 0, body.length, 5);
    assertThat(seen.kinds).containsExactly(ChunkKind.EMPTY);
  }

  @Test
  void aTrailersOnlyStatusIsClassifiedLikeItsHttpStatusWithItsMessageDecodedAndRedacted() {
    BodyConsumer c = call.onResponse(200, head(Map.of("content-type", "application/grpc", "grpc-status", "14",
        "grpc-message", "server%20busy%3A%20key%20sk-secret-key%20%E2%9C%93")), 7);
    c.onEnd(7);
    assertThat(seen.failure.category()).isEqualTo(ErrorCategory.HTTP_STATUS);
    assertThat(seen.failure.httpStatus()).isEqualTo(503);
    assertThat(seen.failure.message()).isEqualTo("gRPC UNAVAILABLE (status 14): server busy: key *** ✓");
  }

  @Test
  void deadlineExceededIsACallTimeout() {
    BodyConsumer c = call.onResponse(200, GRPC, 0);
    c.onTrailers(head(Map.of("grpc-status", "4")), 9);
    c.onEnd(9);
    assertThat(seen.failure.category()).isEqualTo(ErrorCategory.TIMEOUT);
    assertThat(seen.failure.timeoutPhase()).isEqualTo(TimeoutPhase.CALL);
  }

  @Test
  void anEndWithoutGrpcStatusOrInsideAMessageIsMalformed() {
    BodyConsumer c = call.onResponse(200, GRPC, 0);
    c.onEnd(3);
    assertThat(seen.failure.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(seen.failure.message()).contains("without a grpc-status");

    Seen other = new Seen();
    BodyConsumer cut = new GrpcExchange(other, Clock.system(), Redactor.of(List.of()), "text_output", 1 << 20)
        .onResponse(200, GRPC, 0);
    byte[] body = response("Hello");
    cut.onBytes(body, 0, body.length - 2, 1);
    cut.onTrailers(head(Map.of("grpc-status", "0")), 2);
    cut.onEnd(2);
    assertThat(other.failure.message()).contains("ended inside a message");
  }

  @Test
  void aCompressedOrOversizedMessageFailsBeforeItIsBuffered() {
    BodyConsumer c = call.onResponse(200, GRPC, 0);
    byte[] compressed = {1, 0, 0, 0, 3, 1, 2, 3};
    assertThat(c.onBytes(compressed, 0, compressed.length, 1)).isTrue();
    assertThat(seen.failure.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(seen.failure.message()).contains("compressed");

    Seen other = new Seen();
    BodyConsumer big = new GrpcExchange(other, Clock.system(), Redactor.of(List.of()), "text_output", 100)
        .onResponse(200, GRPC, 0);
    byte[] huge = {0, 0x7F, 0, 0, 0};
    assertThat(big.onBytes(huge, 0, huge.length, 1)).isTrue();
    assertThat(other.failure.message()).contains("exceeds the target's maxMessageBytes (100)");
  }

  @Test
  void anErrorMessageInsideTheStreamIsAStreamError() {
    BodyConsumer c = call.onResponse(200, GRPC, 0);
    byte[] error = KServeWire.grpcFrame(new KServeWire.Writer().string(1, "model crashed").toByteArray());
    assertThat(c.onBytes(error, 0, error.length, 1)).isTrue();
    assertThat(seen.failure.category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(seen.failure.message()).contains("model crashed");
  }

  @Test
  void bytesThatAreNotProtobufAreMalformed() {
    BodyConsumer c = call.onResponse(200, GRPC, 0);
    byte[] garbage = KServeWire.grpcFrame(new byte[] {0x0F, 0x01});
    assertThat(c.onBytes(garbage, 0, garbage.length, 1)).isTrue();
    assertThat(seen.failure.message()).contains("not valid protobuf");
  }

  @Test
  void aResponseThatIsNotGrpcIsClassifiedAsHttp() {
    BodyConsumer proxy = call.onResponse(502, head(Map.of("content-type", "text/html")), 0);
    byte[] body = "<html>bad gateway</html>".getBytes(StandardCharsets.UTF_8);
    proxy.onBytes(body, 0, body.length, 1);
    proxy.onEnd(1);
    assertThat(seen.failure.category()).isEqualTo(ErrorCategory.HTTP_STATUS);
    assertThat(seen.failure.httpStatus()).isEqualTo(502);

    Seen other = new Seen();
    BodyConsumer json = new GrpcExchange(other, Clock.system(), Redactor.of(List.of()), "text_output", 100)
        .onResponse(200, head(Map.of("content-type", "application/json")), 0);
    json.onEnd(1);
    assertThat(other.failure.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(other.failure.message()).contains("not a gRPC response");
  }

  @Test
  void grpcTimeoutIsAtMostEightDigits() {
    assertThat(TritonGrpcTarget.grpcTimeout(java.time.Duration.ofMillis(1500))).isEqualTo("1500m");
    assertThat(TritonGrpcTarget.grpcTimeout(java.time.Duration.ofDays(10))).isEqualTo("864000S");
  }
}
