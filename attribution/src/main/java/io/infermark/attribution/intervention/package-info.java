/**
 * Intervention experiments: {@link io.infermark.attribution.intervention.InterventionExperiment} runs
 * a configuration under two settings of each named {@link io.infermark.attribution.intervention.Factor}
 * in interleaved, mirrored blocks (A B B A), estimates the change of a statistic with a bootstrap
 * interval and a signed-rank test, and attributes it across factors by Shapley values over the 2^k
 * design.
 *
 * <p>May import: {@code io.infermark.attribution.shapley}, {@code io.infermark.core},
 * {@code io.infermark.core.capture}, {@code io.infermark.core.stats}, {@code io.infermark.metrics}. Nothing
 * else of infermark: the floors are in docs/architecture.md and ArchitectureTest holds every package to this
 * line.
 */
package io.infermark.attribution.intervention;
