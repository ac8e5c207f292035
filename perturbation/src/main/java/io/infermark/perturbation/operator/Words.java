package io.infermark.perturbation.operator;

import java.util.SplittableRandom;

/**
 * The eligible words of a text for operators: words (maximal runs of letters, apostrophes inside
 * counting) with no protected character, not glued to a digit or underscore, and at least
 * {@code minLength} characters long. A view over a {@link WordIndex}: words are addressed by their
 * id in the index, and nothing is copied. Package-private helper.
 */
final class Words {

  private final WordIndex index;
  private final int minLength;
  /** How many words are eligible. */
  final int count;

  Words(WordIndex index, int minLength) {
    this.index = index;
    this.minLength = minLength;
    this.count = index.eligibleCount(minLength);
  }

  /**
   * Unprotected words (of at least {@code minLength} letters) of {@code text}, by a full scan; a
   * {@link Draft} keeps its own {@link WordIndex} instead ({@link Draft#words(int)}).
   */
  static Words eligible(String text, boolean[] mask, int minLength) {
    return new Words(WordIndex.scan(text, mask), minLength);
  }

  /** Where word {@code id} starts. */
  int start(int id) {
    return index.start(id);
  }

  /** Where word {@code id} ends (exclusive). */
  int end(int id) {
    return index.end(id);
  }

  String word(String text, int id) {
    return text.substring(index.start(id), index.end(id));
  }

  /** The ids of all eligible words, in text order. */
  int[] ids() {
    int[] out = new int[count];
    int k = 0;
    for (int id = 0; id < index.count() && k < count; id++) {
      if (index.eligible(id, minLength)) {
        out[k++] = id;
      }
    }
    return out;
  }

  /**
   * The ids, in text order, of the eligible words of {@code text} that have an entry in
   * {@code lexicon}. One walk over the index: equal to filtering {@link #ids()}.
   */
  int[] withSynonyms(String text, Lexicon lexicon) {
    int[] out = new int[count];
    int k = 0;
    for (int id = 0, seen = 0; id < index.count() && seen < count; id++) {
      if (index.eligible(id, minLength)) {
        seen++;
        if (lexicon.lookup(text, index.start(id), index.end(id)) != null) {
          out[k++] = id;
        }
      }
    }
    return java.util.Arrays.copyOf(out, k);
  }

  /**
   * The ids of {@code k} distinct eligible words in text order, drawn uniformly without replacement
   * (a partial Fisher–Yates shuffle of the eligible words' ranks).
   */
  int[] sample(int k, SplittableRandom random) {
    int[] ranks = Levels.sample(count, Math.min(k, count), random);
    // Ranks are increasing: one walk over the index turns them into ids.
    int rank = 0;
    int r = 0;
    for (int id = 0; id < index.count() && r < ranks.length; id++) {
      if (index.eligible(id, minLength)) {
        if (rank == ranks[r]) {
          ranks[r++] = id;
        }
        rank++;
      }
    }
    return ranks;
  }
}
