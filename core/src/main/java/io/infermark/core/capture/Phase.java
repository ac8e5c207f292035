package io.infermark.core.capture;

/**
 * Connection and exchange milestones of one HTTP request, in the order they normally happen.
 * Reported by targets through {@link StreamObserver#onPhase}; OkHttp targets take them from
 * OkHttp's {@code EventListener}. A reused connection has no DNS, connect or TLS milestones. A
 * pipeline target ({@code pipeline.RetrievalTarget}) reports its retrieval stage,
 * which runs before the generation request, as the first two.
 */
public enum Phase {
  /** A pipeline's retrieval stage started (before the generation request). */
  RETRIEVAL_START,
  /** A pipeline's retrieval stage ended; generation starts after it. */
  RETRIEVAL_END,
  /** Name resolution started. */
  DNS_START,
  /** Name resolution finished. */
  DNS_END,
  /** TCP connect started. */
  CONNECT_START,
  /** TLS handshake started. */
  SECURE_CONNECT_START,
  /**
   * TLS handshake finished; on an HTTP/2 connection over TLS the protocol was negotiated in it (ALPN
   * travels in the handshake's hello messages, so it has no milestone of its own).
   */
  SECURE_CONNECT_END,
  /**
   * The connection (TCP, and TLS when there is TLS) is established. On HTTP/2 the client's preface goes
   * out now and the SETTINGS exchange follows ({@link #SETTINGS_RECEIVED}).
   */
  CONNECT_END,
  /**
   * HTTP/2 only: the server's SETTINGS frame arrived, one round trip after the client's connection
   * preface (sent at {@link #CONNECT_END}); the connection can carry streams from here. Absent on
   * HTTP/1.1 and on a reused connection.
   */
  SETTINGS_RECEIVED,
  /**
   * A connection (new or pooled) was assigned to the request; on HTTP/2, a stream on a connection
   * was opened for it (later than {@link #CONNECT_END} when it waited for a connection another
   * request was opening).
   */
  CONNECTION_ACQUIRED,
  /** HTTP/2 only: the request's HEADERS frame was written to the socket. Absent on HTTP/1.1. */
  REQUEST_HEADERS_SENT,
  /** The whole request (headers and body) has been written. */
  REQUEST_SENT,
  /** The first byte of the response headers arrived. */
  RESPONSE_HEADERS_START,
  /** The response headers have been read. */
  RESPONSE_HEADERS_END,
  /**
   * HTTP/2 only: the first DATA frame of the response arrived. Absent on HTTP/1.1 and for a response
   * without a body.
   */
  RESPONSE_BODY_START
}
