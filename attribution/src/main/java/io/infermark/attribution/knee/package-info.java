/**
 * Knees of latency–load curves: {@link io.infermark.attribution.knee.Kneedle} (matching the reference
 * {@code kneed} package 0.8.6, offline and online, with sensitivity), the absolute
 * {@link io.infermark.attribution.knee.SlopeThreshold} rule, and
 * {@link io.infermark.attribution.knee.SweepKnees}, both applied to a sweep.
 *
 * <p>May import: {@code io.infermark.core.health}, {@code io.infermark.core.sweep},
 * {@code io.infermark.metrics}, {@code io.infermark.metrics.report}. Nothing else of infermark: the floors
 * are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.attribution.knee;
