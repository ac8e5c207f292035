/**
 * When requests are sent: arrival processes (constant, Poisson, gamma, bursts, Markov-modulated, curves,
 * overlays, sequences), closed-loop concurrency, user ramps and stages, rate limits, and {@link
 * io.infermark.core.load.LoadProfile} that holds a run's limits, warmup and cooldown.
 *
 * <p>May import: {@code io.infermark.core.control}, {@code io.infermark.core.request},
 * {@code io.infermark.core.tokens}. Nothing else of infermark: the floors are in docs/architecture.md and
 * ArchitectureTest holds every package to this line.
 */
package io.infermark.core.load;
