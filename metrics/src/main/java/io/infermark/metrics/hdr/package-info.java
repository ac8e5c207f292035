/**
 * HdrHistogram views: interval logs HdrHistogram's tools read
 * ({@link io.infermark.metrics.hdr.HdrIntervalLog}) and a streaming summary for runs that keep no
 * records ({@link io.infermark.metrics.hdr.StreamingSummary}).
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.health}, {@code io.infermark.metrics}. Nothing else of infermark: the floors are
 * in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.metrics.hdr;
