/**
 * The event-loop {@link io.infermark.core.transport.Transport}: {@link
 * io.infermark.core.transport.netty.NettyTransport} reads every stream on a few Netty I/O threads and
 * stamps each piece of a body with the clock reading of the read that delivered it, over HTTP/1.1 or
 * HTTP/2 ({@link io.infermark.core.transport.netty.HttpVersionPolicy}). Only {@code NettyTransport},
 * its builder, {@code HttpVersionPolicy} and {@link io.infermark.core.transport.netty.Http2Settings}
 * are public; the rest is its machinery.
 *
 * <p>The floor plan inside: {@code Exchange} is one request's lifecycle (send, the one timer for the
 * call and read timeouts, the terminal event exactly once, cancellation, the single retry), with
 * {@code Http1Exchange} over an HTTP/1.1 {@code Connection} (its bytes parsed in place by {@code
 * ResponseParser}) and {@code H2Stream} over a stream of an {@code H2Connection}; {@code HostPool}
 * and {@code H2Pool} hold the connections to one host, {@code ConnectionPools} every pool and open
 * channel of a transport, {@code Bootstraps} how a channel is opened (TLS, pipeline).
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.health},
 * {@code io.infermark.core.request}, {@code io.infermark.core.time}, {@code io.infermark.core.transport}.
 * Nothing else of infermark: never {@code core.protocol} (protocols sit above transports) nor the root package
 * (the front door sits above everything); the floors are in docs/architecture.md and ArchitectureTest holds
 * every package to this line.
 */
package io.infermark.core.transport.netty;
