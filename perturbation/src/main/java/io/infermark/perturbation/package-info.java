/**
 * Perturbation spaces, operators, experimental designs, response validators and scenario kits.
 *
 * <p>May import: {@code io.infermark.core.request}, {@code io.infermark.perturbation.design},
 * {@code io.infermark.perturbation.operator}, {@code io.infermark.perturbation.validate}. Nothing else of
 * infermark: the floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.perturbation;
