package io.infermark.perturbation.operator;

import java.util.Arrays;

/**
 * Collects non-overlapping replacements of a text's ranges and applies them in one pass, so
 * operators can address the original positions. Package-private helper.
 */
final class Splicer {

  private final String text;
  private int[] from = new int[8];
  private int[] to = new int[8];
  private String[] with = new String[8];
  private int size;

  Splicer(String text) {
    this.text = text;
  }

  /** Replaces {@code [start, end)} of the original text (ranges must not overlap). */
  void replace(int start, int end, String replacement) {
    if (size == from.length) {
      from = Arrays.copyOf(from, size * 2);
      to = Arrays.copyOf(to, size * 2);
      with = Arrays.copyOf(with, size * 2);
    }
    from[size] = start;
    to[size] = end;
    with[size] = replacement;
    size++;
  }

  boolean isEmpty() {
    return size == 0;
  }

  String apply() {
    return apply(null, null);
  }

  /**
   * Applies the replacements; when {@code mask} is given, also fills {@code maskOut[0]} with the
   * mask moved along with the text: kept characters keep their flag, inserted ones are unprotected.
   */
  String apply(boolean[] mask, boolean[][] maskOut) {
    if (size == 0) {
      if (maskOut != null) {
        maskOut[0] = mask;
      }
      return text;
    }
    Integer[] order = new Integer[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> from[a] != from[b] ? Integer.compare(from[a], from[b]) : Integer.compare(to[a], to[b]));
    StringBuilder s = new StringBuilder(text.length() + 16 * size);
    int at = 0;
    int growth = 0;
    for (int k = 0; k < size; k++) {
      growth += with[k].length() - (to[k] - from[k]);
    }
    boolean[] out = mask == null ? null : new boolean[text.length() + growth];
    for (int k = 0; k < size; k++) {
      int i = order[k];
      if (from[i] < at) {
        throw new IllegalStateException("overlapping edits at " + from[i]);
      }
      if (out != null) {
        System.arraycopy(mask, at, out, s.length(), from[i] - at);
      }
      s.append(text, at, from[i]);
      s.append(with[i]);
      at = to[i];
    }
    if (out != null) {
      System.arraycopy(mask, at, out, s.length(), text.length() - at);
      maskOut[0] = out;
    }
    return s.append(text, at, text.length()).toString();
  }
}
