/**
 * Workloads built from perturbations and logs: variant workloads, query clustering, density-weighted load and
 * centroid synthesis.
 *
 * <p>May import: {@code io.infermark.core.request}, {@code io.infermark.core.workload},
 * {@code io.infermark.perturbation}, {@code io.infermark.perturbation.design}. Nothing else of infermark: the
 * floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.perturbation.workload;
