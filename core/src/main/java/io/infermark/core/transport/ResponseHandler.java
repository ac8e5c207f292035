package io.infermark.core.transport;

import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.time.Clock;

/**
 * What a {@link Transport} reports about one exchange; implemented by the protocol side. Calls for
 * one exchange come from one thread at a time, in this order: {@link #onSend}, phases,
 * {@link #onResponse} then bytes to its {@link BodyConsumer}, and one terminal event
 * ({@link BodyConsumer#onEnd} or {@link #onFailure}). Implementations must be quick: on an event
 * loop they run between the reads of other streams.
 */
public interface ResponseHandler {

  /** The clock every time of this exchange is read from: the run's clock. */
  Clock clock();

  /**
   * The exchange leaves the client at {@code nanoTime}: its first byte is handed to the socket, or,
   * on a new connection, connecting starts. Called once, before anything else.
   */
  void onSend(long nanoTime);

  /** A connection milestone. */
  void onPhase(Phase phase, long nanoTime);

  /**
   * The status line and headers arrived.
   *
   * @return the consumer of the response body
   */
  BodyConsumer onResponse(int status, ResponseHead head, long nanoTime);

  /**
   * The transport is sending the request once more on a new connection: a pooled keep-alive
   * connection failed before any response byte (the server had closed it while idle). Phases of the
   * new connection follow; {@link #onSend} is not reported again. The default does nothing.
   */
  default void onRetry(String reason, long nanoTime) {}

  /**
   * The exchange failed (before or during the body), already classified by the transport. Nothing
   * more is reported after it.
   */
  void onFailure(Failure failure, long nanoTime);
}
