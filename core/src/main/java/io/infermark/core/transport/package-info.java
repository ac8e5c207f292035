/**
 * How bytes move: the {@link io.infermark.core.transport.Transport} SPI over which the HTTP protocols run,
 * its OkHttp implementation, outbound requests, timeouts, cancellation and failure classification.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.health},
 * {@code io.infermark.core.request}, {@code io.infermark.core.time}. Nothing else of infermark: the floors
 * are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.core.transport;
