package io.infermark.core.transport;

/**
 * Moves one HTTP exchange between infermark and a server: writes an {@link OutboundRequest} and
 * reports what came back to a {@link ResponseHandler}. A protocol (OpenAI, Anthropic, ...) encodes
 * requests and decodes bodies; a transport only moves bytes and stamps them, so every protocol runs
 * on every transport.
 *
 * <p>Two transports ship with infermark: {@code netty.NettyTransport}, an
 * event loop that reads every stream on a few I/O threads and stamps each chunk at the read that
 * completed it, and {@link OkHttpTransport}, which runs each exchange on the calling thread with a
 * user's own {@code OkHttpClient} (proxies, interceptors, custom TLS).
 *
 * <p>The contract, which the shared transport contract tests check for every implementation:
 * <ul>
 *   <li>every {@link #start} ends with exactly one of: {@link ResponseHandler#onFailure};
 *       {@link BodyConsumer#onEnd}; or {@link BodyConsumer#onBytes} returning true; whatever the
 *       server, the network or the cancellation does. Nothing is reported after it;
 *   <li>{@link ResponseHandler#onSend} comes first, when the first byte of the request is handed to
 *       the socket (or, on a new connection, when connecting starts): everything before it is the
 *       client's own time and counts as schedule lag;
 *   <li>every time comes from {@link ResponseHandler#clock()}; bytes are handed to the
 *       {@link BodyConsumer} in order, each piece with the clock reading taken when the read that
 *       returned it completed; once the consumer says it is done, no more are handed and the
 *       connection is released (if the message ended) or closed;
 *   <li>sockets have {@code TCP_NODELAY} set, so a request body never waits for a delayed ACK;
 *   <li>timeouts from the request's {@link Timeouts} become {@link io.infermark.core.capture.ErrorCategory#TIMEOUT}
 *       failures with their phase; cancellation ends the exchange promptly as
 *       {@link io.infermark.core.capture.ErrorCategory#CANCELLED}.
 * </ul>
 */
public interface Transport extends AutoCloseable {

  /**
   * Starts one exchange. A {@linkplain #blocking() blocking} transport returns when it has ended;
   * a non-blocking one returns at once and reports from its own threads.
   *
   * @param request what to send
   * @param handler where to report
   * @param cancellation fires when the caller gives up on the exchange
   */
  void start(OutboundRequest request, ResponseHandler handler, io.infermark.core.transport.Cancellation cancellation);

  /** True when {@link #start} runs the whole exchange on the calling thread. */
  boolean blocking();

  /**
   * Told before a run how many exchanges may be in flight at once, so pools are sized from the load
   * instead of throttling it. The default does nothing.
   */
  default void prepare(int maxInFlight) {}

  /**
   * Probes the run's {@linkplain io.infermark.core.health.ClientHealthMonitor health monitor} should
   * run beside the transport, e.g. how long a task waits for an I/O thread (a read-loop backlog
   * delays every stamp taken on that thread). The default has none.
   */
  default java.util.List<io.infermark.core.health.Probe> healthProbes() {
    return java.util.List.of();
  }

  /**
   * True when this transport does not verify TLS certificates or host names (an explicit
   * {@code insecureTls} option, or a user's client that trusts everything): the engine marks every
   * record of its runs and reports show a banner. The default is false.
   */
  default boolean insecureTls() {
    return false;
  }

  /** A short name for reports: {@code netty-epoll}, {@code netty-nio}, {@code okhttp}. */
  String name();

  /** Releases connections and threads. */
  @Override
  void close();
}
