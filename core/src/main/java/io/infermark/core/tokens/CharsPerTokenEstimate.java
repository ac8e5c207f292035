package io.infermark.core.tokens;

/**
 * The vocabulary-free estimate behind {@link TokenCounter#estimate()}: the text is split into words
 * (runs of letters and digits), punctuation marks and whitespace; a word of {@code n} characters
 * counts {@code max(1, round(n / charsPerToken))} tokens, each other non-space character one token,
 * whitespace none. Counting is additive over word boundaries, so appending words adds their count.
 */
final class CharsPerTokenEstimate implements TokenCounter {

  static final double ENGLISH_CHARS_PER_TOKEN = 4.0;
  static final CharsPerTokenEstimate ENGLISH = new CharsPerTokenEstimate(ENGLISH_CHARS_PER_TOKEN);

  private final double charsPerToken;

  CharsPerTokenEstimate(double charsPerToken) {
    if (!(charsPerToken >= 1.0) || Double.isInfinite(charsPerToken)) {
      throw new IllegalArgumentException("charsPerToken must be a finite number >= 1, got " + charsPerToken);
    }
    this.charsPerToken = charsPerToken;
  }

  @Override
  public int count(String text) {
    return countRange(text, 0, text.length());
  }

  /** Additive: whitespace ends a word and counts nothing, so it splits the count exactly. */
  @Override
  public boolean isAdditive() {
    return true;
  }

  @Override
  public int countRange(CharSequence text, int start, int end) {
    java.util.Objects.checkFromToIndex(start, end, text.length());
    int tokens = 0;
    int word = 0;
    for (int i = start; i < end; ) {
      char c = text.charAt(i);
      int kind;
      if (c < 128) {
        kind = ASCII[c];
        i++;
      } else {
        int cp;
        if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(text.charAt(i + 1))) {
          cp = Character.toCodePoint(c, text.charAt(i + 1));
          i += 2;
        } else {
          cp = c;
          i++;
        }
        kind = Character.isLetterOrDigit(cp) ? WORD : Character.isWhitespace(cp) ? SPACE : MARK;
      }
      if (kind == WORD) {
        word++;
        continue;
      }
      tokens += wordTokens(word);
      word = 0;
      if (kind == MARK) {
        tokens++;
      }
    }
    return tokens + wordTokens(word);
  }

  private static final byte WORD = 0;
  private static final byte SPACE = 1;
  private static final byte MARK = 2;
  /** The kind of each ASCII character, as {@link Character#isLetterOrDigit} and {@link Character#isWhitespace} say. */
  private static final byte[] ASCII = new byte[128];

  static {
    for (char c = 0; c < 128; c++) {
      ASCII[c] = Character.isLetterOrDigit(c) ? WORD : Character.isWhitespace(c) ? SPACE : MARK;
    }
  }

  private int wordTokens(int chars) {
    return chars == 0 ? 0 : (int) Math.max(1, Math.round(chars / charsPerToken));
  }

  @Override
  public String name() {
    return "estimate(" + charsPerToken + " chars/token)";
  }

  @Override
  public String toString() {
    return "TokenCounter[" + name() + "]";
  }
}
