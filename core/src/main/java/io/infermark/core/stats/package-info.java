/**
 * Percentile methods shared by every summary ({@link io.infermark.core.stats.QuantileMethod}).
 *
 * <p>May import: no other infermark package.
 */
package io.infermark.core.stats;
