/**
 * Time-resolved views of a run: per-interval series with exact peaks
 * ({@link io.infermark.metrics.timeseries.TimeSeries}), latency heatmaps over time
 * ({@link io.infermark.metrics.timeseries.LatencyHeatmap}) and latency CDFs
 * ({@link io.infermark.metrics.timeseries.LatencyCdf}).
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.stats}, {@code io.infermark.metrics}. Nothing else of infermark: the floors are in
 * docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.metrics.timeseries;
