package io.infermark.core.stream;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.StreamObserver;

/**
 * The {@link StreamDialect#TRITON_GENERATE} decoder for Triton's {@code generate_stream}.
 *
 * <p>An event is {@link ChunkKind#CONTENT} when its {@code text_output} (TensorRT-LLM ensembles)
 * or {@code TEXT} output is a non-empty string (or an array holding one), otherwise
 * {@link ChunkKind#EMPTY}. An event's tokens are its {@code num_output_tokens} (a number, or an
 * array holding one), which Triton's vLLM backend (r24.12 on) and TensorRT-LLM's {@code tensorrt_llm}
 * and BLS models send when the request asked with {@code return_num_output_tokens}: all of them
 * arrived together, stamped at the event's read. Without it the count is unknown (the record counts
 * one token per event). Triton reports no usage or finish reason and sends no terminator, so the
 * stream completes at EOF. {@code {"error": ...}} events are stream errors.
 */
final class TritonGenerateHandler extends SseStreamDecoder {

  private static final byte[] TEXT_OUTPUT = SseDecoder.ascii("text_output");
  private static final byte[] TEXT = SseDecoder.ascii("TEXT");
  private static final byte[] ERROR = SseDecoder.ascii("error");
  private static final byte[] NUM_OUTPUT_TOKENS = SseDecoder.ascii("num_output_tokens");

  private final TextSpans spans = new TextSpans(out.wantsText);
  private boolean content;
  private int tokens;

  TritonGenerateHandler(StreamObserver observer, StreamLimits limits) {
    super(observer, limits);
  }

  @Override
  void onData(SseDecoder.Event event, byte[] data, int start, int end, long nanoTime) {
    content = false;
    tokens = ChunkTimeline.UNKNOWN_TOKENS;
    spans.clear();
    if (!scanPayload(data, start, end, nanoTime)) {
      return;
    }
    out.chunk(nanoTime, content ? ChunkKind.CONTENT : ChunkKind.EMPTY, tokens);
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
      } else if (json.fieldIs(NUM_OUTPUT_TOKENS)) {
        tokens = readCount();
      } else if (json.fieldIs(ERROR)) {
        error |= json.readNonNull();
      } else {
        json.skipValue();
      }
    }
  }

  /**
   * A count, or an array holding one when the output tensor keeps its batch dimension (its first
   * element); unknown when it is neither (a negative number, a string, an empty array).
   */
  private int readCount() {
    if (json.peek() != JsonScanner.ARRAY) {
      int n = OpenAiUsageReader.readCount(json);
      return n < 0 ? ChunkTimeline.UNKNOWN_TOKENS : n;
    }
    json.beginArray();
    int n = ChunkTimeline.UNKNOWN_TOKENS;
    boolean first = true;
    while (json.nextElement()) {
      if (first) {
        int v = OpenAiUsageReader.readCount(json);
        n = v < 0 ? ChunkTimeline.UNKNOWN_TOKENS : v;
        first = false;
      } else {
        json.skipValue();
      }
    }
    return n;
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
