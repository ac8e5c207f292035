/**
 * {@code infermark scenario <kit>}: the seeds' scenario kits (cold start, context inflation, KV pressure, prompt
 * injection with its circuit breaker, tenant isolation, retrieval, tool cascades) and seed 003's dual calibration,
 * knob control and density-weighted load, each a command with the seed's parameters as defaults, its verdict as the
 * exit code and its report (console, JSON, HTML where the kit has one). Not a library API.
 *
 * <p>May import: {@code io.infermark.cli.options}, {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.control}, {@code io.infermark.core.load}, {@code io.infermark.core.pipeline},
 * {@code io.infermark.core.protocol}, {@code io.infermark.core.request}, {@code io.infermark.core.sweep},
 * {@code io.infermark.core.tokens}, {@code io.infermark.core.workload}, {@code io.infermark.metrics},
 * {@code io.infermark.metrics.report}, {@code io.infermark.metrics.server},
 * {@code io.infermark.perturbation.fidelity}, {@code io.infermark.perturbation.scenario},
 * {@code io.infermark.perturbation.workload}, {@code io.infermark.testkit.simulator}. Nothing else of infermark:
 * the floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.cli.scenario;
