package io.infermark.core.workload;

import io.infermark.core.load.Randoms;
import io.infermark.core.tokens.CommonWords;
import io.infermark.core.tokens.TokenCounter;
import java.util.SplittableRandom;

/**
 * Deterministic filler text built from {@link CommonWords}, each one token under
 * {@link TokenCounter#estimate()} and under OpenAI's cl100k and o200k vocabularies (counted there without loading
 * the vocabulary). A stream of words is a function of its seed only and every prefix of it is the
 * same, so texts built from one seed share their beginnings (and a server's prefix cache sees it).
 */
public final class SyntheticText {

  private SyntheticText() {}

  /** The first {@code count} words of the stream of {@code seed}, separated by single spaces. */
  public static String words(long seed, int count) {
    StringBuilder s = new StringBuilder(count * 5);
    appendWords(s, seed, 0, count);
    return s.toString();
  }

  /** Appends words {@code from} (inclusive) to {@code to} (exclusive) of the stream of {@code seed}. */
  static void appendWords(StringBuilder s, long seed, int from, int to) {
    for (int i = from; i < to; i++) {
      if (s.length() > 0) {
        s.append(' ');
      }
      s.append(word(seed, i));
    }
  }

  /** Word {@code i} of the stream of {@code seed}. */
  static String word(long seed, long i) {
    long z = Randoms.mix(seed, i);
    return CommonWords.get((int) Math.floorMod(z, (long) CommonWords.size()));
  }

  /**
   * Text of exactly {@code tokens} tokens by {@code counter} when it can be reached: words of the
   * stream of {@code seed} are added until the count is reached, dropping a word that overshoots
   * and trying the next instead; returns the text whose count is closest at or below the target if
   * no word fits. Use {@code counter.count(result)} for the achieved length.
   */
  public static String exactly(TokenCounter counter, int tokens, long seed) {
    if (tokens < 0) {
      throw new IllegalArgumentException("token count must be >= 0, was " + tokens);
    }
    // Start from a word count the counter puts at or just below the target, then fill word by word.
    int words = tokens;
    String text = words(seed, words);
    int count = counter.count(text);
    while (count > tokens && words > 0) {
      words = Math.max(0, words - Math.max(1, count - tokens));
      text = words(seed, words);
      count = counter.count(text);
    }
    StringBuilder s = new StringBuilder(text);
    long candidate = words;
    int tries = 0;
    while (count < tokens && tries < 64) {
      int mark = s.length();
      if (s.length() > 0) {
        s.append(' ');
      }
      s.append(word(seed, candidate++));
      int next = counter.count(s.toString());
      if (next <= tokens) {
        count = next;
        tries = 0;
      } else {
        s.setLength(mark); // this word overshoots: try the stream's next one
        tries++;
      }
    }
    return s.toString();
  }
}
