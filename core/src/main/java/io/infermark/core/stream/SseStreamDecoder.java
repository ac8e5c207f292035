package io.infermark.core.stream;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.StreamObserver;

/**
 * Shared plumbing of the dialects carried over SSE: framing by {@link SseDecoder}, one
 * {@link JsonScanner} reused for every event, the terminal-state guard, each payload read as
 * exactly one JSON document ({@link #scanPayload}), invalid JSON reported as
 * {@link ErrorCategory#MALFORMED_STREAM}, and error payloads as well as llama.cpp's non-standard
 * {@code error:} field reported as {@link ErrorCategory#STREAM_ERROR}.
 */
abstract class SseStreamDecoder implements StreamDecoder, SseDecoder.Listener {

  final StreamReporter out;
  final JsonScanner json = new JsonScanner();
  private final SseDecoder sse;
  /**
   * Set by {@link #readPayload} when the payload is a server error (an error object, in the
   * dialect's own terms); {@link #scanPayload} then reports it.
   */
  boolean error;

  SseStreamDecoder(StreamObserver observer, StreamLimits limits) {
    this.out = new StreamReporter(observer);
    this.sse = new SseDecoder(this, limits);
  }

  @Override
  public final void feed(byte[] bytes, int offset, int length, long nanoTime) {
    if (!out.finished()) {
      sse.feed(bytes, offset, length, nanoTime);
    }
  }

  @Override
  public final boolean finished() {
    return out.finished();
  }

  @Override
  public final void end(long nanoTime) {
    if (!out.finished()) {
      sse.end();
      onEof(nanoTime);
    }
  }

  @Override
  public final void onEvent(SseDecoder.Event event, long nanoTime) {
    if (out.finished()) {
      return;
    }
    byte[] data = event.dataBytes();
    int start = 0;
    int end = event.dataLength();
    while (start < end && isWhitespace(data[start])) {
      start++;
    }
    while (end > start && isWhitespace(data[end - 1])) {
      end--;
    }
    if (start == end) {
      // A whitespace-only payload carries nothing; servers use it as a keep-alive.
      return;
    }
    try {
      onData(event, data, start, end, nanoTime);
    } catch (JsonScanner.MalformedJsonException e) {
      out.fail(ErrorCategory.MALFORMED_STREAM, "invalid JSON in event: " + e.getMessage(), nanoTime);
    }
  }

  @Override
  public final void onLimitExceeded(String message, long nanoTime) {
    out.fail(ErrorCategory.MALFORMED_STREAM, message, nanoTime);
  }

  @Override
  public final void onErrorField(String value, long nanoTime) {
    out.streamError(value, nanoTime);
  }

  /**
   * Handles one event's payload, trimmed of surrounding whitespace and never empty.
   *
   * @param data buffer of the payload, only valid during the call
   */
  abstract void onData(SseDecoder.Event event, byte[] data, int start, int end, long nanoTime);

  /** The body ended without a terminal event. */
  abstract void onEof(long nanoTime);

  /**
   * Reads the payload with {@link #readPayload} as exactly one JSON document. Returns false when
   * it is a server error, which has then been reported with the payload as its body; invalid JSON
   * throws, for {@link #onEvent} to report.
   */
  final boolean scanPayload(byte[] data, int start, int end, long nanoTime) {
    error = false;
    json.reset(data, start, end - start);
    readPayload();
    json.endDocument();
    if (error) {
      out.streamError(data, start, end, nanoTime);
      return false;
    }
    return true;
  }

  /**
   * Reads the JSON value {@link #scanPayload} has pointed {@link #json} at, noting what the
   * payload carries (and {@link #error}) for {@link #onData} to report.
   */
  abstract void readPayload();

  static boolean isWhitespace(byte b) {
    return b == ' ' || b == '\n' || b == '\r' || b == '\t';
  }
}
