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
    int tokens = 0;
    int word = 0;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (Character.isLetterOrDigit(cp)) {
        word++;
        continue;
      }
      tokens += wordTokens(word);
      word = 0;
      if (!Character.isWhitespace(cp)) {
        tokens++;
      }
    }
    return tokens + wordTokens(word);
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
