/**
 * Summaries of benchmark runs: the latency metric definitions ({@link io.infermark.metrics.LatencyMetric}),
 * exact distributions ({@link io.infermark.metrics.Distribution}) and the per-run summary
 * ({@link io.infermark.metrics.RunSummary}). All latencies are reported in milliseconds; the records
 * they come from hold nanoseconds.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.health}, {@code io.infermark.core.load}, {@code io.infermark.core.request},
 * {@code io.infermark.core.stats}, {@code io.infermark.core.workload}, {@code io.infermark.metrics.cache},
 * {@code io.infermark.metrics.session}, {@code io.infermark.metrics.stats}. Nothing else of infermark: the
 * floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.metrics;
