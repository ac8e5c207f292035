package io.infermark.core.tokens;

import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;

/**
 * Counts the tokens of a text the way one tokenizer would, so prompts can be built to an exact
 * length and a request's achieved length compared with the one asked for.
 *
 * <p>Implementations are immutable and thread-safe. {@link #estimate()} needs no vocabulary; other
 * counters (a BPE vocabulary, one calibrated against a server's reported usage) plug in here.
 */
public interface TokenCounter {

  /** The number of tokens in {@code text}; 0 for the empty string. */
  int count(String text);

  /** A short name saying which tokenizer this is, e.g. {@code "estimate(4.0 chars/token)"}. */
  String name();

  /**
   * True when counts add up across whitespace: {@code count(a + b) == count(a) + count(b)} for any
   * texts {@code a} and {@code b} where {@code a} ends or {@code b} starts with a whitespace character
   * ({@link Character#isWhitespace(int)}). A caller may then count a long text once and, after
   * editing it, adjust by the whitespace-bounded stretches it changed instead of counting it again.
   * False by default: BPE vocabularies and calibrated counters are only nearly additive.
   * {@link #estimate()} is additive.
   */
  default boolean isAdditive() {
    return false;
  }

  /**
   * The number of tokens in {@code text.subSequence(start, end)}, always equal to
   * {@code count(text.subSequence(start, end).toString())} (the default); counters may override it
   * to count without copying.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= start <= end <= text.length()}
   */
  default int countRange(CharSequence text, int start, int end) {
    java.util.Objects.checkFromToIndex(start, end, text.length());
    return count(text.subSequence(start, end).toString());
  }

  /**
   * Tokens of a prompt's content: the sum over its messages' contents. Chat-template overhead
   * (role markers, separators) is the server's and is not included.
   */
  default int count(Prompt prompt) {
    int total = 0;
    for (Message m : prompt.messages()) {
      total += count(m.content());
    }
    return total;
  }

  /**
   * The documented estimate: one token per {@value CharsPerTokenEstimate#ENGLISH_CHARS_PER_TOKEN}
   * characters of a word, at least one per word, and one per punctuation mark. Within about 15 %
   * of BPE vocabularies on English prose; use a real vocabulary when exact lengths matter.
   */
  static TokenCounter estimate() {
    return CharsPerTokenEstimate.ENGLISH;
  }

  /** The estimate with another characters-per-token ratio (e.g. about 2 for code, 1.5 for CJK). */
  static TokenCounter estimate(double charsPerToken) {
    return new CharsPerTokenEstimate(charsPerToken);
  }

  /**
   * Exact counts in an OpenAI vocabulary ({@code "cl100k_base"}, {@code "o200k_base"}, ...)
   * through JTokkit; special tokens are counted as ordinary text. The vocabulary loads on first use.
   *
   * @throws IllegalArgumentException for an unknown encoding name
   */
  static TokenCounter openAi(String encoding) {
    return JTokkitCounter.forEncoding(encoding);
  }

  /**
   * The OpenAI vocabulary of a model JTokkit knows ({@code "gpt-4o"}, {@code "gpt-4"}, ...).
   *
   * @throws IllegalArgumentException for a model JTokkit does not know
   */
  static TokenCounter openAiModel(String model) {
    return JTokkitCounter.forModel(model);
  }
}
