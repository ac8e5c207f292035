package io.infermark.core.stream;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.StreamObserver;

/**
 * The {@link StreamDialect#TRITON_GENERATE} decoder for Triton's {@code generate_stream}.
 *
 * <p>An event is {@link ChunkKind#CONTENT} when its {@code text_output} (TensorRT-LLM ensembles)
 * or {@code TEXT} output is a non-empty string (or an array holding one), otherwise
 * {@link ChunkKind#EMPTY}; token counts are unknown. Triton reports no usage or finish reason and
 * sends no terminator, so the stream completes at EOF. {@code {"error": ...}} events are stream
 * errors.
 */
final class TritonGenerateHandler extends SseStreamDecoder {

  private static final byte[] TEXT_OUTPUT = SseDecoder.ascii("text_output");
  private static final byte[] TEXT = SseDecoder.ascii("TEXT");
  private static final byte[] ERROR = SseDecoder.ascii("error");

  private final TextSpans spans = new TextSpans(out.wantsText);
  private boolean content;

  TritonGenerateHandler(StreamObserver observer, StreamLimits limits) {
    super(observer, limits);
  }

  @Override
  void onData(SseDecoder.Event event, byte[] data, int start, int end, long nanoTime) {
    content = false;
    spans.clear();
    if (!scanPayload(data, start, end, nanoTime)) {
      return;
    }
    out.chunk(nanoTime, content ? ChunkKind.CONTENT : ChunkKind.EMPTY, ChunkTimeline.UNKNOWN_TOKENS);
    if (out.wantsText) {
      spans.emit(data, out.observer);
    }
  }

  @Override
  void onEof(long nanoTime) {
    out.complete(nanoTime);
  }

  @Override
  void readPayload() {
    json.beginObject();
    while (json.nextField()) {
      if (json.fieldIs(TEXT_OUTPUT) || json.fieldIs(TEXT)) {
        readOutput();
      } else if (json.fieldIs(ERROR)) {
        error |= json.readNonNull();
      } else {
        json.skipValue();
      }
    }
  }

  /** A string, or an array of strings when the output tensor keeps its batch dimension. */
  private void readOutput() {
    if (json.peek() == JsonScanner.ARRAY) {
      json.beginArray();
      while (json.nextElement()) {
        content |= spans.readText(ChunkKind.CONTENT, json);
      }
    } else {
      content |= spans.readText(ChunkKind.CONTENT, json);
    }
  }
}
