/**
 * Tables of a metric by perturbation level.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.stats}. Nothing else of infermark: the floors are in docs/architecture.md and
 * ArchitectureTest holds every package to this line.
 */
package io.infermark.perturbation.analysis;
