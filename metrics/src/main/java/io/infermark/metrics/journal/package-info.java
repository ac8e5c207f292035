/**
 * Durable runs: {@link io.infermark.metrics.journal.RecordsJournal} writes every record to disk as it
 * completes, and {@link io.infermark.metrics.journal.Journal} reads a journal back and rebuilds the run,
 * so that an interrupted, evicted or killed run keeps what it measured.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.health}, {@code io.infermark.core.load}, {@code io.infermark.core.request},
 * {@code io.infermark.core.time}, {@code io.infermark.metrics.report}. Nothing else of infermark: the floors
 * are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.metrics.journal;
