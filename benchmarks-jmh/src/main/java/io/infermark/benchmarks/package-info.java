/**
 * JMH benchmarks of the hot paths, the client-capacity harnesses and the peer comparisons. Not a library: run
 * through {@code benchmarks.jar}.
 *
 * <p>May import: {@code io.infermark.attribution.change}, {@code io.infermark.attribution.drift},
 * {@code io.infermark.attribution.knee}, {@code io.infermark.attribution.pareto},
 * {@code io.infermark.attribution.phase}, {@code io.infermark.attribution.shapley},
 * {@code io.infermark.attribution.tree}, {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.health}, {@code io.infermark.core.load}, {@code io.infermark.core.protocol},
 * {@code io.infermark.core.request}, {@code io.infermark.core.session}, {@code io.infermark.core.stats},
 * {@code io.infermark.core.stream}, {@code io.infermark.core.time}, {@code io.infermark.core.tokens},
 * {@code io.infermark.core.transport}, {@code io.infermark.core.transport.netty},
 * {@code io.infermark.core.workload}, {@code io.infermark.metrics}, {@code io.infermark.metrics.hdr},
 * {@code io.infermark.metrics.journal}, {@code io.infermark.metrics.otel},
 * {@code io.infermark.metrics.report}, {@code io.infermark.metrics.slo},
 * {@code io.infermark.metrics.timeseries}, {@code io.infermark.perturbation},
 * {@code io.infermark.perturbation.design}, {@code io.infermark.perturbation.operator},
 * {@code io.infermark.testkit.capacity}, {@code io.infermark.testkit.fuzz}, {@code io.infermark.testkit.simulator}.
 * Nothing else of infermark: the floors are in docs/architecture.md and ArchitectureTest holds every package to
 * this line.
 */
package io.infermark.benchmarks;
