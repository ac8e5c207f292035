package io.infermark.perturbation.workload;

/**
 * A deterministic, dependency-free text embedding: a hashed bag of character trigrams.
 *
 * <ol>
 *   <li>Normalise as {@link QueryClustering#normalize} (lower case, runs of non-letters-or-digits
 *       become one space, trimmed).
 *   <li>Every character trigram of the normalised text (the whole text when it is shorter than 3)
 *       adds 1 to coordinate {@code h(trigram) mod dimensions}, with {@code h} the same 64-bit
 *       FNV-style hash with a SplitMix64 finaliser as the shingles of {@link QueryClustering}
 *       (taken as unsigned).
 *   <li>The vector is scaled to Euclidean length 1, so the squared distance of two embeddings is
 *       {@code 2 − 2 cos}: queries sharing wording sit close together.
 * </ol>
 *
 * <p>A stand-in for a sentence embedding model: it sees spelling, not meaning (paraphrases with no
 * words in common land far apart). Immutable and thread-safe.
 */
public final class TrigramEmbedding {

  private final int dimensions;

  private TrigramEmbedding(int dimensions) {
    this.dimensions = dimensions;
  }

  /** Embeddings of {@code dimensions} coordinates (at least 1). */
  public static TrigramEmbedding of(int dimensions) {
    if (dimensions < 1) {
      throw new IllegalArgumentException("dimensions must be >= 1, was " + dimensions);
    }
    return new TrigramEmbedding(dimensions);
  }

  /** The number of coordinates. */
  public int dimensions() {
    return dimensions;
  }

  /**
   * The embedding of {@code text}: unit length.
   *
   * @throws IllegalArgumentException when the text has no letter or digit
   */
  public double[] embed(String text) {
    String t = QueryClustering.normalize(text);
    if (t.isEmpty()) {
      throw new IllegalArgumentException("text has no letter or digit to embed: '" + text + "'");
    }
    double[] v = new double[dimensions];
    if (t.length() < 3) {
      v[bucket(t)] += 1;
    } else {
      for (int i = 0; i + 3 <= t.length(); i++) {
        v[bucket(t.substring(i, i + 3))] += 1;
      }
    }
    double norm = 0;
    for (double x : v) {
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (int i = 0; i < v.length; i++) {
      v[i] /= norm;
    }
    return v;
  }

  private int bucket(String gram) {
    return (int) Long.remainderUnsigned(QueryClustering.hash(gram), dimensions);
  }

  @Override
  public String toString() {
    return "TrigramEmbedding[" + dimensions + " dimensions]";
  }
}
