/**
 * Distribution-free statistics the summaries rest on: order-statistic ranks for percentile
 * confidence intervals ({@link io.infermark.metrics.stats.OrderStatisticRanks}) and the Hill
 * estimate of how heavy a sample's upper tail is ({@link io.infermark.metrics.stats.HillEstimate}).
 *
 * <p>May import: no other infermark package.
 */
package io.infermark.metrics.stats;
