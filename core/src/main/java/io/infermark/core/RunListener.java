package io.infermark.core;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.request.InferenceRequest;

/**
 * Observes a run while it happens: progress displays, OpenTelemetry export, streaming summaries
 * that never hold every record, trace-context propagation. Register with
 * {@link Benchmark#listener(RunListener)}; every method has a do-nothing default.
 *
 * <p>Call order and threads: {@link #onRunStarted} once, before any request; then
 * {@link #beforeSend} on each request's own thread (concurrently, so it must be thread-safe);
 * {@link #onRecord} once per record, never concurrently with another {@code onRecord} call of the
 * same run (calls are serialised by the engine, so a listener may update plain fields there), and
 * all of them before {@link #onRunFinished}, which is called once with the result. Keep the calls
 * short: {@code onRecord} runs while the engine holds its bookkeeping lock.
 *
 * <p>A listener that throws does not stop the run or lose a record: the engine logs the exception
 * (SLF4J, WARN the first time for each listener) and carries on.
 */
public interface RunListener {

  /** The run is about to issue its first request. */
  default void onRunStarted(RunStart start) {
  }

  /**
   * A request is about to be sent on the current thread. Returns the request to send: the same
   * one, or one with added headers (for example a W3C {@code traceparent}); its id and prompt must
   * not change. Called only for requests that are actually sent.
   */
  default InferenceRequest beforeSend(InferenceRequest request) {
    return request;
  }

  /**
   * A request's record is final: it succeeded, failed, was cancelled or was never sent. Called
   * exactly once per scheduled request, warmup included (see {@link RequestRecord#warmup()}).
   */
  default void onRecord(RequestRecord record) {
  }

  /** The run has ended; every record has been reported. */
  default void onRunFinished(RunResult result) {
  }
}
