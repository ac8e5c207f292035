package io.infermark.core.capture;

/**
 * Connection and exchange milestones of one HTTP request, in the order they normally happen.
 * Reported by targets through {@link StreamObserver#onPhase}; OkHttp targets take them from
 * OkHttp's {@code EventListener}. A reused connection has no DNS, connect or TLS milestones.
 */
public enum Phase {
  /** Name resolution started. */
  DNS_START,
  /** Name resolution finished. */
  DNS_END,
  /** TCP connect started. */
  CONNECT_START,
  /** TLS handshake started. */
  SECURE_CONNECT_START,
  /** TLS handshake finished. */
  SECURE_CONNECT_END,
  /** The connection (TCP and TLS) is established. */
  CONNECT_END,
  /** A connection (new or pooled) was assigned to the request. */
  CONNECTION_ACQUIRED,
  /** The whole request (headers and body) has been written. */
  REQUEST_SENT,
  /** The first byte of the response headers arrived. */
  RESPONSE_HEADERS_START,
  /** The response headers have been read. */
  RESPONSE_HEADERS_END
}
