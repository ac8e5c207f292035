package io.infermark.testkit.simulator;

import java.util.List;

/**
 * The words the simulator generates: each output token is one short English word with a leading
 * space, chosen by the seed and the token's position alone, so every response of a seeded
 * simulator is predictable (and every request with the same seed gets the same text).
 *
 * <p>Token {@code i} is {@code words().get(index(seed, i))}; {@link #text(long, int)} is the
 * concatenation of tokens {@code 0..n-1}. Words are ASCII, so a token is also one byte per character.
 */
public final class OutputVocabulary {

  private static final List<String> WORDS = List.of(
      " the", " model", " token", " stream", " server", " batch", " cache", " queue",
      " of", " and", " to", " in", " is", " a", " for", " with",
      " fast", " slow", " long", " short", " first", " last", " next", " each",
      " time", " rate", " load", " tail", " peak", " mean", " step", " path",
      " we", " it", " they", " you", " run", " send", " read", " wait",
      " data", " text", " word", " line", " page", " test", " case", " plan",
      " up", " down", " on", " off", " now", " then", " here", " there",
      " red", " blue", " green", " gold", " light", " dark", " warm", " cold");

  // The words as bytes (ASCII), for renderers that copy them straight into a response buffer.
  private static final byte[][] WORD_BYTES = WORDS.stream()
      .map(w -> w.getBytes(java.nio.charset.StandardCharsets.US_ASCII)).toArray(byte[][]::new);

  private OutputVocabulary() {}

  /** Token {@code position}'s ASCII bytes; shared, never to be modified. */
  static byte[] tokenBytes(long seed, int position) {
    return WORD_BYTES[index(seed, position)];
  }

  /** The vocabulary, in index order: 64 distinct words, each a space and 1–6 ASCII letters. */
  public static List<String> words() {
    return WORDS;
  }

  /** Token {@code position} (0-based) of any response generated with {@code seed}. */
  public static String token(long seed, int position) {
    return WORDS.get(index(seed, position));
  }

  /** The first {@code tokens} tokens generated with {@code seed}, concatenated. */
  public static String text(long seed, int tokens) {
    return text(seed, 0, tokens);
  }

  static String text(long seed, int from, int to) {
    StringBuilder s = new StringBuilder((to - from) * 6);
    for (int i = from; i < to; i++) {
      s.append(token(seed, i));
    }
    return s.toString();
  }

  private static int index(long seed, int position) {
    return (int) (Mix.mix64(seed, position) >>> 58); // top 6 bits: 0..63
  }
}
