/**
 * The event-loop transport: Netty reads every stream on a few I/O threads and stamps each chunk at the
 * read that completed it; HTTP/1.1 and HTTP/2 (h2c and TLS with ALPN) over pooled connections.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.health},
 * {@code io.infermark.core.time}, {@code io.infermark.core.transport}. Nothing else of infermark: the floors
 * are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.core.transport.netty;
