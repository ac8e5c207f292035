/**
 * Semantic fidelity of answers: a pluggable {@link io.infermark.perturbation.fidelity.SemanticScorer}
 * (an offline BERTScore-style default) and seed 003 §2.2's fuse that trips when an answer scores below
 * 0.75.
 */
package io.infermark.perturbation.fidelity;
