/**
 * Perturbation operators (typos, synonyms, paraphrase, reordering, padding, noise, confusables, prompt
 * injection, schema mutation) and their levels and channels.
 *
 * <p>May import: {@code io.infermark.core.tokens}. Nothing else of infermark: the floors are in
 * docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.perturbation.operator;
