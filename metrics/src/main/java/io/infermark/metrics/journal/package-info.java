/**
 * Durable runs: {@link io.infermark.metrics.journal.RecordsJournal} writes every record to disk as it
 * completes, and {@link io.infermark.metrics.journal.Journal} reads a journal back and rebuilds the run,
 * so that an interrupted, evicted or killed run keeps what it measured.
 */
package io.infermark.metrics.journal;
