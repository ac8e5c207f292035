/**
 * Numbered runnable examples, one lesson each, and the quickstart.
 *
 * <p>May import: {@code io.infermark.attribution.change}, {@code io.infermark.attribution.drift},
 * {@code io.infermark.attribution.knee}, {@code io.infermark.attribution.pareto},
 * {@code io.infermark.attribution.phase}, {@code io.infermark.attribution.surrogate},
 * {@code io.infermark.cli}, {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.load}, {@code io.infermark.core.pipeline}, {@code io.infermark.core.protocol},
 * {@code io.infermark.core.request}, {@code io.infermark.core.session}, {@code io.infermark.core.sweep},
 * {@code io.infermark.core.tokens}, {@code io.infermark.core.workload}, {@code io.infermark.metrics},
 * {@code io.infermark.metrics.otel}, {@code io.infermark.metrics.report},
 * {@code io.infermark.metrics.session}, {@code io.infermark.metrics.slo}, {@code io.infermark.metrics.stats},
 * {@code io.infermark.metrics.timeseries}, {@code io.infermark.perturbation},
 * {@code io.infermark.perturbation.analysis}, {@code io.infermark.perturbation.design},
 * {@code io.infermark.perturbation.operator}, {@code io.infermark.perturbation.workload},
 * {@code io.infermark.testkit.simulator}. Nothing else of infermark: the floors are in docs/architecture.md
 * and ArchitectureTest holds every package to this line.
 */
package io.infermark.examples;
