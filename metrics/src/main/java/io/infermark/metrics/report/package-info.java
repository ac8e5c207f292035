/**
 * Reports of a {@link io.infermark.metrics.RunSummary}: pretty JSON
 * ({@link io.infermark.metrics.report.JsonReport}), a plain-text console table
 * ({@link io.infermark.metrics.report.ConsoleTable}), and the raw records as JSON Lines
 * ({@link io.infermark.metrics.report.RecordsJsonl}).
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.health}, {@code io.infermark.core.load}, {@code io.infermark.core.request},
 * {@code io.infermark.core.sweep}, {@code io.infermark.core.workload}, {@code io.infermark.metrics},
 * {@code io.infermark.metrics.cache}, {@code io.infermark.metrics.server},
 * {@code io.infermark.metrics.session}, {@code io.infermark.metrics.slo},
 * {@code io.infermark.metrics.timeseries}. Nothing else of infermark: the floors are in docs/architecture.md
 * and ArchitectureTest holds every package to this line.
 */
package io.infermark.metrics.report;
