/**
 * HdrHistogram views: interval logs HdrHistogram's tools read
 * ({@link io.infermark.metrics.hdr.HdrIntervalLog}) and a streaming summary for runs that keep no
 * records ({@link io.infermark.metrics.hdr.StreamingSummary}).
 */
package io.infermark.metrics.hdr;
