/**
 * Surrogate models of per-request latency and their explanations: a
 * {@link io.infermark.attribution.surrogate.FeatureTable} of what the records hold (tokens, load at
 * send, workload tags, caller columns), an {@link io.infermark.attribution.surrogate.XgboostSurrogate}
 * that fits gradient-boosted trees with the optional xgboost4j, and a
 * {@link io.infermark.attribution.surrogate.SurrogateExplanation} of TreeSHAP values in milliseconds
 * with the efficiency check and held-out fit quality reported.
 */
package io.infermark.attribution.surrogate;
