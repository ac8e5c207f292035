/**
 * Time-resolved views of a run: per-interval series with exact peaks
 * ({@link io.infermark.metrics.timeseries.TimeSeries}), latency heatmaps over time
 * ({@link io.infermark.metrics.timeseries.LatencyHeatmap}) and latency CDFs
 * ({@link io.infermark.metrics.timeseries.LatencyCdf}).
 */
package io.infermark.metrics.timeseries;
