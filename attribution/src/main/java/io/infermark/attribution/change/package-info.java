/**
 * Why did P99 move: the Shapley decomposition of the change of a statistic between two runs over
 * named per-request components (phases that add up to the latency, or factors fed to a model).
 *
 * <p>Entry point: {@link io.infermark.attribution.change.ChangeDecomposition}; inputs are two
 * {@link io.infermark.attribution.change.ComponentTable}s, the result a
 * {@link io.infermark.attribution.change.PercentileChange}. Percentile games are evaluated without
 * sorting: coalitions are visited in Gray-code order so each step updates every request's outcome by one
 * component, and the percentile is selected among the values above a moving threshold (about the top
 * 2 % for P99) rather than over the whole sample.
 *
 * <p>May import: {@code io.infermark.attribution.phase}, {@code io.infermark.attribution.shapley},
 * {@code io.infermark.core.capture}, {@code io.infermark.core.stats}, {@code io.infermark.metrics}. Nothing
 * else of infermark: the floors are in docs/architecture.md and ArchitectureTest holds every package to this
 * line.
 */
package io.infermark.attribution.change;
