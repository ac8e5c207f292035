/**
 * Pareto fronts of throughput against latency over configurations:
 * {@link io.infermark.attribution.pareto.ParetoFront} (2-D, O(n log n), with exact hypervolume and
 * dominators) over {@link io.infermark.attribution.pareto.ParetoPoint}s.
 *
 * <p>May import: {@code io.infermark.metrics}. Nothing else of infermark: the floors are in
 * docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.attribution.pareto;
