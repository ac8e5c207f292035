/**
 * Pareto fronts of throughput against latency over configurations:
 * {@link io.infermark.attribution.pareto.ParetoFront} (2-D, O(n log n), with exact hypervolume and
 * dominators) over {@link io.infermark.attribution.pareto.ParetoPoint}s.
 */
package io.infermark.attribution.pareto;
