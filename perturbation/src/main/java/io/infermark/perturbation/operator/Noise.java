package io.infermark.perturbation.operator;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Whitespace, case and punctuation noise: at a level with rate {@code r}, {@code round(r × words)}
 * distinct eligible words (at least one when {@code r > 0}) each get one change, chosen uniformly
 * among the enabled kinds: an extra space after the word ({@code "whitespace"}), a flipped case
 * ({@code "case"}: lower becomes Capitalised, anything else lower), or a punctuation change
 * ({@code "punctuation"}: a mark right after the word is dropped, otherwise a comma is inserted).
 *
 * <p>Meaning-preserving; protected spans are left alone.
 */
public final class Noise implements Operator {

  private final double[] rates;
  private final boolean whitespace;
  private final boolean caseNoise;
  private final boolean punctuation;

  private Noise(double[] rates, boolean whitespace, boolean caseNoise, boolean punctuation) {
    this.rates = rates;
    this.whitespace = whitespace;
    this.caseNoise = caseNoise;
    this.punctuation = punctuation;
  }

  /**
   * Noise of every kind, with one level per rate (changed words per word, strictly increasing, in
   * [0, 1]), e.g. {@code Noise.rates(0, 0.02, 0.05, 0.1)}.
   */
  public static Noise rates(double... rates) {
    return new Noise(Levels.checkRates("noise", rates, 1.0), true, true, true);
  }

  /** Only the given kinds of noise; at least one must be on. */
  public Noise kinds(boolean whitespace, boolean caseNoise, boolean punctuation) {
    if (!whitespace && !caseNoise && !punctuation) {
      throw new IllegalArgumentException("noise needs at least one of whitespace, case, punctuation");
    }
    return new Noise(rates, whitespace, caseNoise, punctuation);
  }

  @Override
  public String name() {
    return "noise";
  }

  @Override
  public int levelCount() {
    return rates.length;
  }

  @Override
  public String describeLevel(int level) {
    Levels.checkLevel(this, level);
    return rates[level] + " edits/word";
  }

  @Override
  public boolean preservesMeaning() {
    return true;
  }

  @Override
  public void apply(Draft draft, int level, SplittableRandom random) {
    Levels.checkLevel(this, level);
    String text = draft.text();
    Words words = draft.words(1);
    int edits = Levels.editsForRate(rates[level], words.count);
    if (edits == 0) {
      return;
    }
    char[] kinds = new char[3];
    int kindCount = 0;
    if (whitespace) {
      kinds[kindCount++] = 'w';
    }
    if (caseNoise) {
      kinds[kindCount++] = 'c';
    }
    if (punctuation) {
      kinds[kindCount++] = 'p';
    }
    boolean[] mask = draft.mask();
    Splicer splicer = new Splicer(text);
    for (int k : words.sample(edits, random)) {
      int s = words.start(k);
      int e = words.end(k);
      switch (kinds[random.nextInt(kindCount)]) {
        case 'w' -> {
          splicer.replace(e, e, " ");
          draft.log(Channel.TEXT, "whitespace", e, "", " ");
        }
        case 'c' -> {
          String w = text.substring(s, e);
          String lower = w.toLowerCase(Locale.ROOT);
          String flipped = w.equals(lower) ? Character.toUpperCase(w.charAt(0)) + w.substring(1) : lower;
          splicer.replace(s, e, flipped);
          draft.log(Channel.TEXT, "case", s, w, flipped);
        }
        default -> {
          if (e < text.length() && isMark(text.charAt(e)) && !mask[e]) {
            splicer.replace(e, e + 1, "");
            draft.log(Channel.TEXT, "punctuation", e, String.valueOf(text.charAt(e)), "");
          } else {
            splicer.replace(e, e, ",");
            draft.log(Channel.TEXT, "punctuation", e, "", ",");
          }
        }
      }
    }
    draft.splice(splicer);
  }

  private static boolean isMark(char c) {
    return c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?';
  }

  @Override
  public String toString() {
    return "Noise[rates " + Levels.list(rates) + "]";
  }
}
