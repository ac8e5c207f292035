package io.infermark.perturbation.fidelity;

/**
 * Scores how well an answer keeps the meaning of a reference answer, from 0 (nothing in common) to 1
 * (the same). Seed 003 §2.2 scores every RAG answer with BERTScore against a reference and trips a
 * fuse below 0.75 ({@link SemanticFidelityFuse}); plug in a BERTScore service, an embedding model or
 * an LLM judge here, or use the offline default {@link #greedyTrigramF1()}.
 */
@FunctionalInterface
public interface SemanticScorer {

  /**
   * The score of {@code candidate} against {@code reference}, in [0, 1].
   *
   * @throws IllegalArgumentException if the scorer cannot score these texts
   */
  double score(String candidate, String reference);

  /** A short name for reports. */
  default String name() {
    return getClass().getSimpleName();
  }

  /**
   * The offline default: BERTScore's greedy matching F1 with character-trigram word vectors instead of a
   * contextual model. Dependency-free and deterministic; see {@link GreedyTrigramF1} for what it sees and
   * how its values differ from BERTScore's.
   */
  static SemanticScorer greedyTrigramF1() {
    return GreedyTrigramF1.INSTANCE;
  }
}
