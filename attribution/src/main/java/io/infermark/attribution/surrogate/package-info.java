/**
 * Surrogate models of per-request latency and their explanations: a
 * {@link io.infermark.attribution.surrogate.FeatureTable} of what the records hold (tokens, load at
 * send, workload tags, caller columns), an {@link io.infermark.attribution.surrogate.XgboostSurrogate}
 * that fits gradient-boosted trees with the optional xgboost4j, and a
 * {@link io.infermark.attribution.surrogate.SurrogateExplanation} of TreeSHAP values in milliseconds
 * with the efficiency check and held-out fit quality reported.
 *
 * <p>May import: {@code io.infermark.attribution.phase}, {@code io.infermark.attribution.tree},
 * {@code io.infermark.core.capture}, {@code io.infermark.core.stats}, {@code io.infermark.core.workload},
 * {@code io.infermark.metrics}. Nothing else of infermark: the floors are in docs/architecture.md and
 * ArchitectureTest holds every package to this line.
 */
package io.infermark.attribution.surrogate;
