package io.infermark.core.transport.netty;

/**
 * Which HTTP version the {@link NettyTransport} speaks.
 *
 * <ul>
 *   <li>{@link #HTTP_1_1} (the default): one request per connection at a time;
 *   <li>{@link #HTTP_2}: HTTP/2 only. On {@code https} URLs the TLS handshake offers only {@code h2}
 *       by ALPN, and a server that does not choose it fails the request as {@code CONNECT}; on
 *       {@code http} URLs the connection starts with the HTTP/2 preface at once ("prior knowledge",
 *       h2c), as gRPC servers, Envoy and Triton expect;
 *   <li>{@link #AUTO}: on {@code https} URLs ALPN offers {@code h2} and {@code http/1.1} and the
 *       server chooses (most gateways choose h2); on {@code http} URLs HTTP/1.1, since a cleartext
 *       server cannot be asked which it speaks without an extra round trip.
 * </ul>
 */
public enum HttpVersionPolicy {
  /** HTTP/1.1 on every connection. */
  HTTP_1_1,
  /** HTTP/2 on every connection: h2 by ALPN over TLS, h2c with prior knowledge over cleartext. */
  HTTP_2,
  /** HTTP/2 where a TLS server chooses it by ALPN, HTTP/1.1 otherwise. */
  AUTO
}
