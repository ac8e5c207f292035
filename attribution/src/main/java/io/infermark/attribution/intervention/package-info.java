/**
 * Intervention experiments: {@link io.infermark.attribution.intervention.InterventionExperiment} runs
 * a configuration under two settings of each named {@link io.infermark.attribution.intervention.Factor}
 * in interleaved, mirrored blocks (A B B A), estimates the change of a statistic with a bootstrap
 * interval and a signed-rank test, and attributes it across factors by Shapley values over the 2^k
 * design.
 */
package io.infermark.attribution.intervention;
