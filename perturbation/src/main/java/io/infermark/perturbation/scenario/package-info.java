/**
 * Scenario kits from the seeds (cold start, context inflation, KV pressure, prompt injection, retrieval,
 * tenant isolation, tool cascades), each with its verdict.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.load}, {@code io.infermark.core.pipeline}, {@code io.infermark.core.request},
 * {@code io.infermark.core.stats}, {@code io.infermark.core.tokens},
 * {@code io.infermark.perturbation.fidelity}, {@code io.infermark.perturbation.operator},
 * {@code io.infermark.perturbation.validate}. Nothing else of infermark: the floors are in
 * docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.perturbation.scenario;
