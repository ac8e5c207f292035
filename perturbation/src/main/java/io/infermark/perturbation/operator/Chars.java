package io.infermark.perturbation.operator;

/**
 * Character classes with an ASCII fast path: each answer equals the {@link Character} method of
 * the same name, read from a table for ASCII and delegated otherwise. Package-private helper for
 * the per-character scans.
 */
final class Chars {

  private static final byte LETTER = 1;
  private static final byte DIGIT = 2;
  private static final byte SPACE = 4;
  private static final byte[] ASCII = new byte[128];

  static {
    for (char c = 0; c < 128; c++) {
      ASCII[c] = (byte) ((Character.isLetter(c) ? LETTER : 0) | (Character.isDigit(c) ? DIGIT : 0)
          | (Character.isWhitespace(c) ? SPACE : 0));
    }
  }

  private Chars() {}

  /** {@link Character#isLetter(char)}. */
  static boolean isLetter(char c) {
    return c < 128 ? (ASCII[c] & LETTER) != 0 : Character.isLetter(c);
  }

  /** {@link Character#isDigit(char)}. */
  static boolean isDigit(char c) {
    return c < 128 ? (ASCII[c] & DIGIT) != 0 : Character.isDigit(c);
  }

  /** {@link Character#isLetterOrDigit(char)}. */
  static boolean isLetterOrDigit(char c) {
    return c < 128 ? (ASCII[c] & (LETTER | DIGIT)) != 0 : Character.isLetterOrDigit(c);
  }

  /** {@link Character#isWhitespace(char)}. */
  static boolean isWhitespace(char c) {
    return c < 128 ? (ASCII[c] & SPACE) != 0 : Character.isWhitespace(c);
  }
}
