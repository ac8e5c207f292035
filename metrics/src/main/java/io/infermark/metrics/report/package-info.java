/**
 * Reports of a {@link io.infermark.metrics.RunSummary}: pretty JSON
 * ({@link io.infermark.metrics.report.JsonReport}), a plain-text console table
 * ({@link io.infermark.metrics.report.ConsoleTable}), and the raw records as JSON Lines
 * ({@link io.infermark.metrics.report.RecordsJsonl}).
 */
package io.infermark.metrics.report;
