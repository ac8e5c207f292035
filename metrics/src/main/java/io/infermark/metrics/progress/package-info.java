/**
 * Console progress for long runs: {@link io.infermark.metrics.progress.ConsoleProgress}, an opt-in run listener.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.health}, {@code io.infermark.core.request}, {@code io.infermark.core.time}.
 * Nothing else of infermark: the floors are in docs/architecture.md and ArchitectureTest holds every package
 * to this line.
 */
package io.infermark.metrics.progress;
