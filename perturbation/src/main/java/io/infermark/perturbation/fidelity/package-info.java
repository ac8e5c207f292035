/**
 * Semantic fidelity of answers: a pluggable {@link io.infermark.perturbation.fidelity.SemanticScorer}
 * (an offline BERTScore-style default) and seed 003 §2.2's fuse that trips when an answer scores below
 * 0.75.
 *
 * <p>May import: {@code io.infermark.core.capture}. Nothing else of infermark: the floors are in
 * docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.perturbation.fidelity;
