/**
 * Explains what drives latency: per-request and per-percentile phase decomposition, Shapley and
 * SHAP attribution, why a percentile moved between runs, intervention experiments, drift between
 * windows, knees of latency–load curves and Pareto fronts over configurations.
 *
 * <p>Every method here returns parts that add up: attributions sum to the explained difference, and
 * where sampling makes that approximate, the gap is reported, not assumed.
 */
package io.infermark.attribution;
