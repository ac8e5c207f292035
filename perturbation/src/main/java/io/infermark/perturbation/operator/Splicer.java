package io.infermark.perturbation.operator;

import java.util.Arrays;

/**
 * Collects non-overlapping replacements of a text's ranges and applies them in one pass, so
 * operators can address the original positions. After {@link #apply(boolean[])} the replacements
 * can be read back in text order ({@link #from(int)}, {@link #to(int)}, {@link #length(int)}), which
 * lets a {@link Draft} move its word index along instead of rescanning. Package-private helper.
 */
final class Splicer {

  private final String text;
  private int[] from = new int[8];
  private int[] to = new int[8];
  private String[] with = new String[8];
  private int size;
  private int[] order;
  private boolean[] movedMask;

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
    return apply(null);
  }

  /**
   * Applies the replacements; when {@code mask} is given, {@link #movedMask()} then holds the mask
   * moved along with the text: kept characters keep their flag, inserted ones are unprotected.
   */
  String apply(boolean[] mask) {
    return apply(mask, null, null);
  }

  /**
   * {@link #apply(boolean[])}, building the text in {@code buffer} (cleared first; may be null) and
   * the moved mask in {@code spare} when it is long enough (may be null; its tail past the new text
   * is left as it was, so the moved mask may be longer than the text).
   */
  String apply(boolean[] mask, StringBuilder buffer, boolean[] spare) {
    sort();
    if (size == 0) {
      movedMask = mask;
      return text;
    }
    int growth = 0;
    for (int k = 0; k < size; k++) {
      growth += with[k].length() - (to[k] - from[k]);
    }
    int length = text.length() + growth;
    StringBuilder s = buffer == null ? new StringBuilder(length) : buffer;
    s.setLength(0);
    s.ensureCapacity(length);
    // A new mask gets room to grow, so that it can be reused as the spare of later, longer texts.
    boolean[] out = mask == null ? null
        : spare != null && spare.length >= length ? spare : new boolean[buffer == null ? length : length + length / 8];
    int at = 0;
    for (int k = 0; k < size; k++) {
      int i = order[k];
      if (from[i] < at) {
        throw new IllegalStateException("overlapping edits at " + from[i]);
      }
      if (out != null) {
        System.arraycopy(mask, at, out, s.length(), from[i] - at);
        // Inserted characters are unprotected (a reused spare may hold old flags there).
        int p = s.length() + from[i] - at;
        Arrays.fill(out, p, p + with[i].length(), false);
      }
      s.append(text, at, from[i]);
      s.append(with[i]);
      at = to[i];
    }
    if (out != null) {
      System.arraycopy(mask, at, out, s.length(), text.length() - at);
    }
    movedMask = out;
    return s.append(text, at, text.length()).toString();
  }

  /** The mask moved by the last {@link #apply(boolean[])}. */
  boolean[] movedMask() {
    return movedMask;
  }

  /** The number of replacements. */
  int size() {
    return size;
  }

  /** Start, in the original text, of the {@code k}-th replacement in text order (after apply). */
  int from(int k) {
    return from[order[k]];
  }

  /** End, in the original text, of the {@code k}-th replacement in text order (after apply). */
  int to(int k) {
    return to[order[k]];
  }

  /** Length of the text that replaced the {@code k}-th range in text order (after apply). */
  int length(int k) {
    return with[order[k]].length();
  }

  /** Orders replacements by (start, end); stable insertion sort, linear on the usual sorted input. */
  private void sort() {
    order = new int[size];
    for (int i = 0; i < size; i++) {
      int j = i;
      while (j > 0 && (from[order[j - 1]] > from[i] || (from[order[j - 1]] == from[i] && to[order[j - 1]] > to[i]))) {
        order[j] = order[j - 1];
        j--;
      }
      order[j] = i;
    }
  }
}
