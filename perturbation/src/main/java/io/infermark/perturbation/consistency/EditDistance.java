package io.infermark.perturbation.consistency;

/**
 * Levenshtein distance (insertions, deletions, substitutions of UTF-16 units) and its normalised form
 * {@code d / max(|a|, |b|)} in [0, 1], 0 for identical texts. {@code O(|a| × |b|)} time,
 * {@code O(min(|a|, |b|))} memory.
 */
public final class EditDistance {

  private EditDistance() {}

  /** The Levenshtein distance between {@code a} and {@code b}. */
  public static int levenshtein(String a, String b) {
    if (a.length() < b.length()) {
      String t = a;
      a = b;
      b = t;
    }
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      char ca = a.charAt(i - 1);
      for (int j = 1; j <= b.length(); j++) {
        int cost = ca == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** {@code levenshtein(a, b) / max(|a|, |b|)}; 0 when both are empty. */
  public static double normalized(String a, String b) {
    int max = Math.max(a.length(), b.length());
    return max == 0 ? 0 : levenshtein(a, b) / (double) max;
  }
}
