package io.infermark.core.stream;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The observer of one stream plus whether its outcome has been reported: every dialect stops at
 * the first terminal event (completion or failure) and ignores whatever follows it.
 */
final class StreamReporter {

  final StreamObserver observer;
  /** Read once: the hot path must not pay an interface call per chunk to learn it. */
  final boolean wantsText;
  private boolean finished;

  StreamReporter(StreamObserver observer) {
    this.observer = Objects.requireNonNull(observer, "observer");
    this.wantsText = observer.wantsText();
  }

  boolean finished() {
    return finished;
  }

  void chunk(long nanoTime, ChunkKind kind, int tokens) {
    observer.onChunk(nanoTime, kind, tokens);
  }

  /** Reports usage that has at least one count; a payload without counts says nothing. */
  void usage(Usage usage) {
    if (!usage.isEmpty()) {
      observer.onUsage(usage);
    }
  }

  /** Reports the finish reason a payload carried; null when it carried none. */
  void finishReason(String reason) {
    if (reason != null) {
      observer.onFinishReason(reason);
    }
  }

  void complete(long nanoTime) {
    if (!finished) {
      finished = true;
      observer.onComplete(nanoTime);
    }
  }

  void fail(ErrorCategory category, String message, long nanoTime) {
    if (!finished) {
      finished = true;
      observer.onFailure(Failure.of(category, message), nanoTime);
    }
  }

  /** A server error object inside the stream; the message is summarized from its JSON. */
  void streamError(String errorBody, long nanoTime) {
    fail(ErrorCategory.STREAM_ERROR, ErrorBodies.summarize(errorBody), nanoTime);
  }

  /** A payload that is a server error; the rare path, so decoding it is fine. */
  void streamError(byte[] payload, int start, int end, long nanoTime) {
    streamError(new String(payload, start, end - start, StandardCharsets.UTF_8), nanoTime);
  }
}
