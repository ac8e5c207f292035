package io.infermark.testkit.simulator;

/**
 * The simulator's prompt tokenizer: a deliberately simple, documented stand-in for a model's BPE
 * tokenizer, so tests can predict {@code usage.prompt_tokens} exactly.
 *
 * <p>A token is either a maximal run of letters and digits ({@link Character#isLetterOrDigit}),
 * or any single other character that is not whitespace (each punctuation mark or symbol counts
 * alone). Whitespace separates tokens and never counts. So {@code "Hello, my name is"} is 5
 * tokens ({@code Hello}, {@code ,}, {@code my}, {@code name}, {@code is}) and {@code "it's 3.5"}
 * is 6. Code points outside the Basic Multilingual Plane are classified as whole characters.
 *
 * <p>Chat prompts count the text of every message's content (a string, or the {@code text} of
 * each {@code "type":"text"} part) and nothing else: no role names, no chat template overhead.
 * Image and audio parts cost the tokens {@link MediaTokens} gives them.
 */
public final class PromptTokenizer {

  private PromptTokenizer() {}

  /**
   * Appends a hash of each token of {@code text} to {@code out}, mixed with {@code salt} (the
   * message's role), so the prefix cache can tell prompts apart token by token.
   */
  static void hashes(CharSequence text, long salt, LongList out) {
    long h = 0;
    boolean inWord = false;
    int i = 0;
    int n = text.length();
    while (i < n) {
      int cp = Character.codePointAt(text, i);
      i += Character.charCount(cp);
      if (Character.isLetterOrDigit(cp)) {
        h = inWord ? h * 31 + cp : cp;
        inWord = true;
      } else {
        if (inWord) {
          out.add(Mix.mix64(salt, h));
          inWord = false;
        }
        if (!Character.isWhitespace(cp)) {
          out.add(Mix.mix64(salt, -1L - cp));
        }
      }
    }
    if (inWord) {
      out.add(Mix.mix64(salt, h));
    }
  }

  /** The number of tokens in {@code text} under the rule above. */
  public static int count(CharSequence text) {
    int tokens = 0;
    boolean inWord = false;
    int i = 0;
    int n = text.length();
    while (i < n) {
      int cp = Character.codePointAt(text, i);
      i += Character.charCount(cp);
      if (Character.isLetterOrDigit(cp)) {
        if (!inWord) {
          tokens++;
          inWord = true;
        }
      } else {
        inWord = false;
        if (!Character.isWhitespace(cp)) {
          tokens++;
        }
      }
    }
    return tokens;
  }
}
