package io.infermark.perturbation.operator;

import java.util.ArrayList;
import java.util.List;

/**
 * The parts of a text that meaning-preserving operators leave alone: numbers and any word that
 * contains a digit ({@code 3.14}, {@code 1,000}, {@code 2024-05-01}, {@code ORDER-123456}), code
 * (fenced blocks between {@code ```} lines and inline spans between backticks) and quoted strings
 * (between straight {@code "} or curly “ ” double quotes). Single quotes are not quotes here: they
 * are apostrophes too often.
 *
 * <p>An unclosed fence protects to the end of the text; an unclosed backtick or quote protects
 * nothing. One linear pass; no regular expressions.
 */
public final class ProtectedSpans {

  private ProtectedSpans() {}

  /** A mask with {@code true} at every protected character of {@code text}. */
  public static boolean[] mask(String text) {
    int n = text.length();
    boolean[] mask = new boolean[n];
    // Only backticks, quotes and digits start a protected span, and they are rare: the loop tests
    // one table bit per character. A word holding a digit is the maximal run of word characters and
    // joiners around that digit (a run never contains a quote or backtick, so runs and quoted spans
    // never overlap), which is what a left-to-right scan of whole words would protect.
    int i = 0;
    while (i < n) {
      char c = text.charAt(i);
      if (!isTrigger(c)) {
        i++;
        continue;
      }
      if (c == '`') {
        if (text.startsWith("```", i)) {
          int close = text.indexOf("```", i + 3);
          int end = close < 0 ? n : close + 3;
          fill(mask, i, end);
          i = end;
          continue;
        }
        int close = indexOfOnLine(text, '`', i + 1);
        if (close > 0) {
          fill(mask, i, close + 1);
          i = close + 1;
          continue;
        }
      } else if (c == '"' || c == '\u201C') {
        char closer = c == '"' ? '"' : '\u201D';
        int close = text.indexOf(closer, i + 1);
        if (close > 0) {
          fill(mask, i, close + 1);
          i = close + 1;
          continue;
        }
      } else {
        // A digit: protect its whole word.
        int start = i;
        while (start > 0 && inWord(text, start - 1)) {
          start--;
        }
        int end = i + 1;
        while (end < n && inWord(text, end)) {
          end++;
        }
        fill(mask, start, end);
        i = end;
        continue;
      }
      i++;
    }
    return mask;
  }

  private static final boolean[] ASCII_TRIGGER = new boolean[128];

  static {
    for (char c = 0; c < 128; c++) {
      ASCII_TRIGGER[c] = c == '`' || c == '"' || Character.isDigit(c);
    }
  }

  private static boolean isTrigger(char c) {
    return c < 128 ? ASCII_TRIGGER[c] : c == '\u201C' || Character.isDigit(c);
  }

  private static boolean inWord(String text, int i) {
    return isWordChar(text.charAt(i)) || isJoiner(text, i);
  }

  /** The protected spans of {@code text} as {@code [start, end)} pairs, in order. */
  public static List<int[]> spans(String text) {
    boolean[] mask = mask(text);
    List<int[]> spans = new ArrayList<>();
    int start = -1;
    for (int i = 0; i <= mask.length; i++) {
      boolean on = i < mask.length && mask[i];
      if (on && start < 0) {
        start = i;
      } else if (!on && start >= 0) {
        spans.add(new int[] {start, i});
        start = -1;
      }
    }
    return spans;
  }

  private static boolean isWordChar(char c) {
    return Chars.isLetterOrDigit(c) || c == '_';
  }

  /** Separators inside numbers and identifiers ({@code 3.14}, {@code 1,000}, {@code ORDER-1}) join words. */
  private static boolean isJoiner(String text, int i) {
    char c = text.charAt(i);
    if (c != '.' && c != ',' && c != '-' && c != ':' && c != '/') {
      return false;
    }
    return i > 0 && i + 1 < text.length() && isWordChar(text.charAt(i - 1)) && Chars.isLetterOrDigit(text.charAt(i + 1))
        && (Chars.isDigit(text.charAt(i - 1)) || Chars.isDigit(text.charAt(i + 1)) || c == '-');
  }

  private static int indexOfOnLine(String text, char c, int from) {
    for (int i = from; i < text.length(); i++) {
      char x = text.charAt(i);
      if (x == c) {
        return i;
      }
      if (x == '\n') {
        return -1;
      }
    }
    return -1;
  }

  private static void fill(boolean[] mask, int from, int to) {
    java.util.Arrays.fill(mask, from, to, true);
  }
}
