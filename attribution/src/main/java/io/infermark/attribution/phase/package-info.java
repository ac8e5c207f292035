/**
 * Where each request's latency went: {@link io.infermark.attribution.phase.RequestPhases} splits one
 * request's E2E into consecutive phases (client queue, connect, TLS, request write, waiting for the
 * first byte, first byte to first token, decode) that add up exactly in nanoseconds, and
 * {@link io.infermark.attribution.phase.PhaseDecomposition} averages the split over a run and over
 * its tail.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.stats}, {@code io.infermark.metrics}. Nothing else of infermark: the floors are in
 * docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.attribution.phase;
