/**
 * Consistency of answers across the variants of one prompt: edit distance and per-class reports.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.perturbation}, {@code io.infermark.perturbation.validate}. Nothing else of infermark:
 * the floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.perturbation.consistency;
