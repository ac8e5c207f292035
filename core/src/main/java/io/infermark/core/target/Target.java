package io.infermark.core.target;

import io.infermark.core.capture.StreamObserver;
import io.infermark.core.request.InferenceRequest;

/**
 * The SPI through which infermark reaches an inference service: send one request and report what
 * happened to a {@link StreamObserver}.
 *
 * <p>{@link #execute} blocks the calling thread until the response has ended; the engine runs each
 * in-flight request on its own thread (a virtual thread on Java 21+). An implementation must end
 * every call with exactly one {@link StreamObserver#onComplete} or {@link StreamObserver#onFailure},
 * classify its failures, and abort promptly when the {@link Cancellation} fires. Exceptions thrown
 * by {@code execute} are recorded as {@link io.infermark.core.capture.ErrorCategory#CLIENT} failures.
 *
 * <p>Implement this to benchmark any host protocol; {@link OpenAiTarget} covers OpenAI-compatible
 * servers.
 */
public interface Target extends AutoCloseable {

  /**
   * Sends one request and reports its progress until it ends.
   *
   * @param request what to send
   * @param observer where to report milestones, chunks, usage and the outcome
   * @param cancellation fires when the engine gives up on the request
   */
  void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation);

  /**
   * Told before a run how many requests may be in flight at once, so connection pools and
   * dispatchers are sized from the load instead of throttling it. The default does nothing.
   */
  default void prepare(int maxInFlight) {}

  /** Releases connections and threads. The default does nothing. */
  @Override
  default void close() {}
}
