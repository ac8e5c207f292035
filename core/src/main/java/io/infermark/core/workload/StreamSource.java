package io.infermark.core.workload;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.request.GenerationParams;

/**
 * The requests of one closed-loop stream, decided one at a time so that the next may depend on how
 * the previous one went (a conversation carrying its history forward, a client retry). The engine
 * calls it from that stream's thread only: {@link #next} then, once the request has ended,
 * {@link #completed} with its record, and so on.
 */
public interface StreamSource {

  /**
   * The next request of this stream.
   *
   * @param index the request's run-wide index
   * @param elapsedNanos time since the run's origin
   * @param defaults the run's generation parameters
   */
  RequestSpec next(long index, long elapsedNanos, GenerationParams defaults);

  /** The request last returned by {@link #next} has ended with this record. */
  default void completed(RequestRecord record) {}
}
