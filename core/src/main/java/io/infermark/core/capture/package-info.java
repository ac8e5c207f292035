/**
 * The capture API and what it produces: {@link io.infermark.core.capture.StreamObserver} (what a target
 * reports while a request runs), the per-request {@link io.infermark.core.capture.RequestRecord} with its
 * chunk timeline, connection phases and failure, and the run's schedule statistics.
 *
 * <p>May import: {@code io.infermark.core.stats}, {@code io.infermark.core.time}. Nothing else of infermark:
 * the floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.core.capture;
