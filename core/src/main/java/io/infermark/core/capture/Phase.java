package io.infermark.core.capture;

/**
 * Connection and exchange milestones of one HTTP request, in the order they normally happen.
 * Reported by targets through {@link StreamObserver#onPhase}; OkHttp targets take them from
 * OkHttp's {@code EventListener}. A reused connection has no DNS, connect or TLS milestones. A
 * pipeline target ({@link io.infermark.core.pipeline.RetrievalTarget}) reports its retrieval stage,
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
