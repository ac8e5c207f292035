package io.infermark.core.protocol;

import io.infermark.core.capture.StreamObserver;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.transport.Cancellation;

/**
 * The SPI through which infermark reaches an inference service: send one request and report what
 * happened to a {@link StreamObserver}.
 *
 * <p>{@link #execute} blocks the calling thread until the response has ended; for a blocking target
 * the engine runs each in-flight request on its own thread (a virtual thread on Java 21+). A target
 * whose {@link #isAsync()} is true does its I/O on its own threads: the engine calls {@link #start}
 * from its scheduling thread and devotes no thread to the request. An implementation must end
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
   * True when {@link #start} returns at once and reports from the target's own threads (an event
   * loop). The default is false: the engine then calls {@link #execute} on a thread per request.
   */
  default boolean isAsync() {
    return false;
  }

  /**
   * Starts one request and returns without waiting for it, for targets whose {@link #isAsync()} is
   * true; the outcome reaches {@code observer} later, from another thread. An exception thrown here
   * means the request was not started and is recorded as a
   * {@link io.infermark.core.capture.ErrorCategory#CLIENT} failure. The default runs {@link #execute}.
   */
  default void start(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    execute(request, observer, cancellation);
  }

  /**
   * Told before a run how many requests may be in flight at once, so connection pools and
   * dispatchers are sized from the load instead of throttling it. The default does nothing.
   */
  default void prepare(int maxInFlight) {}

  /**
   * Probes the engine runs beside the target during a run and judges in its client health (see
   * {@link io.infermark.core.health.ClientHealthMonitor}); the default has none.
   */
  default java.util.List<io.infermark.core.health.Probe> healthProbes() {
    return java.util.List.of();
  }

  /**
   * True when the target does not verify its servers' TLS certificates or host names (an explicit
   * {@code insecureTls} option, or a client that trusts everything). The engine then marks every
   * record ({@link io.infermark.core.capture.RequestRecord#insecureTls()}) and the run's result, and
   * reports show a banner. The default is false.
   */
  default boolean insecureTls() {
    return false;
  }

  /**
   * The URL this target sends to, without userinfo, recorded as the run's server; empty (the default)
   * for a target that is not reached at one URL (host code, a pipeline, an in-process fake).
   */
  default java.util.Optional<String> serverUrl() {
    return java.util.Optional.empty();
  }

  /**
   * True when the engine may send this target one pre-flight request (the run's parameters and one
   * output token) before a run, to fail fast on a wrong URL, model or key. The default is false; the
   * HTTP protocols say true.
   */
  default boolean supportsPreflight() {
    return false;
  }

  /** Releases connections and threads. The default does nothing. */
  @Override
  default void close() {}
}
