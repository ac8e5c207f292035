package io.infermark.core;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;

/** A target that answers at once: 200, one one-token content chunk, usage 5 in / 1 out, complete. */
final class OneTokenTarget implements Target {

  static final OneTokenTarget INSTANCE = new OneTokenTarget();

  private static final Clock CLOCK = Clock.system();

  private OneTokenTarget() {}

  @Override
  public void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    observer.onResponseHeaders(200, CLOCK.nanoTime());
    observer.onChunk(CLOCK.nanoTime(), ChunkKind.CONTENT, 1);
    observer.onUsage(Usage.of(5, 1));
    observer.onComplete(CLOCK.nanoTime());
  }

  @Override
  public String toString() {
    return "OneTokenTarget";
  }
}
