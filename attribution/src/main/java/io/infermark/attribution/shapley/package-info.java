/**
 * Cooperative games and their Shapley values: {@link io.infermark.attribution.shapley.CoalitionGame}
 * is any set function over up to 63 players, and {@link io.infermark.attribution.shapley.Shapley}
 * computes its values exactly or by sampling.
 *
 * <p>May import: no other infermark package.
 */
package io.infermark.attribution.shapley;
