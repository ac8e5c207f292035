package io.infermark.perturbation.operator;

import java.util.Arrays;

/**
 * Word boundaries of a text for operators: a word is a maximal run of letters (apostrophes inside
 * count), and it is eligible when no character of it is protected. Package-private helper.
 */
final class Words {

  final int[] start;
  final int[] end;
  final int count;

  private Words(int[] start, int[] end, int count) {
    this.start = start;
    this.end = end;
    this.count = count;
  }

  /** Unprotected words (of at least {@code minLength} letters) of {@code text}. */
  static Words eligible(String text, boolean[] mask, boolean ignoreMask, int minLength) {
    int[] start = new int[16];
    int[] end = new int[16];
    int count = 0;
    int n = text.length();
    int i = 0;
    while (i < n) {
      if (!Character.isLetter(text.charAt(i))) {
        i++;
        continue;
      }
      int s = i;
      boolean prot = false;
      while (i < n && (Character.isLetter(text.charAt(i))
          || (text.charAt(i) == '\'' && i + 1 < n && Character.isLetter(text.charAt(i + 1))))) {
        prot |= mask[i];
        i++;
      }
      // Letters glued to digits or underscores belong to an identifier, not a word.
      boolean glued = (s > 0 && isIdent(text.charAt(s - 1))) || (i < n && isIdent(text.charAt(i)));
      if ((ignoreMask || !prot) && !glued && i - s >= minLength) {
        if (count == start.length) {
          start = Arrays.copyOf(start, count * 2);
          end = Arrays.copyOf(end, count * 2);
        }
        start[count] = s;
        end[count] = i;
        count++;
      }
    }
    return new Words(start, end, count);
  }

  private static boolean isIdent(char c) {
    return Character.isDigit(c) || c == '_';
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
