package io.infermark.perturbation.operator;

/**
 * Word boundaries of a text for operators: a word is a maximal run of letters (apostrophes inside
 * count), and it is eligible when no character of it is protected. Package-private helper.
 */
final class Words {

  final int[] start;
  final int[] end;
  final int count;

  Words(int[] start, int[] end, int count) {
    this.start = start;
    this.end = end;
    this.count = count;
  }

  /**
   * Unprotected words (of at least {@code minLength} letters) of {@code text}, by a full scan; a
   * {@link Draft} keeps its own {@link WordIndex} instead ({@link Draft#words(int)}).
   */
  static Words eligible(String text, boolean[] mask, int minLength) {
    return WordIndex.scan(text, mask).eligible(minLength);
  }

  String word(String text, int k) {
    return text.substring(start[k], end[k]);
  }

  /**
   * {@code k} distinct word indices in increasing order, drawn uniformly without replacement (a
   * partial Fisher–Yates shuffle of the index range).
   */
  int[] sample(int k, java.util.SplittableRandom random) {
    return Levels.sample(count, Math.min(k, count), random);
  }
}
