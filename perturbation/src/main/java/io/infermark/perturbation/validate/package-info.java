/**
 * Response validators (JSON shape, formats, correctness) and the verdicts and rates they produce.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.request}, {@code io.infermark.perturbation}. Nothing else of infermark: the floors
 * are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.perturbation.validate;
