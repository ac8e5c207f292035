/**
 * Summaries of benchmark runs: the latency metric definitions ({@link io.infermark.metrics.LatencyMetric}),
 * exact distributions ({@link io.infermark.metrics.Distribution}) and the per-run summary
 * ({@link io.infermark.metrics.RunSummary}). All latencies are reported in milliseconds; the records
 * they come from hold nanoseconds.
 */
package io.infermark.metrics;
