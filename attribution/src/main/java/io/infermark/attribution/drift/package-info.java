/**
 * Drift between two samples of a latency metric (two runs, or windows of one run):
 * {@link io.infermark.attribution.drift.Drift} reports PSI, KL and Jensen–Shannon divergence over the
 * baseline's quantile bins, the two-sample Kolmogorov–Smirnov test, and a tail comparison by
 * percentile confidence intervals in a {@link io.infermark.attribution.drift.DriftReport};
 * {@link io.infermark.attribution.drift.DriftWindows} applies it over time windows.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.stats},
 * {@code io.infermark.metrics}. Nothing else of infermark: the floors are in docs/architecture.md and
 * ArchitectureTest holds every package to this line.
 */
package io.infermark.attribution.drift;
