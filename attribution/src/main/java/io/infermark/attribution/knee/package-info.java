/**
 * Knees of latency–load curves: {@link io.infermark.attribution.knee.Kneedle} (matching the reference
 * {@code kneed} package 0.8.6, offline and online, with sensitivity), the absolute
 * {@link io.infermark.attribution.knee.SlopeThreshold} rule, and
 * {@link io.infermark.attribution.knee.SweepKnees}, both applied to a sweep.
 */
package io.infermark.attribution.knee;
