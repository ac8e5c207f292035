package io.infermark.perturbation.operator;

import java.util.SplittableRandom;

/**
 * Unicode confusables and zero-width characters: at a level with rate {@code r},
 * {@code round(r × words)} distinct eligible words (at least one when {@code r > 0}) each get one
 * change: a Latin letter replaced by a Cyrillic look-alike ({@code "confusable"}, e.g. {@code a} →
 * U+0430, {@code o} → U+043E, from Unicode's confusables data), or a zero-width character
 * ({@code "zero-width"}: U+200B, U+200C, U+200D or U+2060) inserted inside the word. A word with no
 * letter that has a look-alike gets a zero-width character.
 *
 * <p>Meaning-preserving: a reader sees the same text; only its code points (and tokenisation)
 * change. Protected spans are left alone.
 */
public final class Confusables implements Operator {

  /** Which changes to make. */
  public enum Mode {
    /** Look-alike letters and zero-width characters, half and half. */
    BOTH,
    /** Look-alike letters only (zero-width where no letter has one). */
    CONFUSABLES,
    /** Zero-width characters only. */
    ZERO_WIDTH
  }

  private static final String LATIN = "aceopxyisjABCEHIJKMOPSTXY";
  private static final String CYRILLIC =
      "\u0430\u0441\u0435\u043E\u0440\u0445\u0443\u0456\u0455\u0458"
          + "\u0410\u0412\u0421\u0415\u041D\u0406\u0408\u041A\u041C\u041E\u0420\u0405\u0422\u0425\u04AE";
  private static final char[] ZERO_WIDTH = {'\u200B', '\u200C', '\u200D', '\u2060'};

  private final double[] rates;
  private final Mode mode;

  private Confusables(double[] rates, Mode mode) {
    this.rates = rates;
    this.mode = mode;
  }

  /** Both kinds of change, one level per rate (changed words per word, strictly increasing, in [0, 1]). */
  public static Confusables rates(double... rates) {
    return new Confusables(Levels.checkRates("confusables", rates, 1.0), Mode.BOTH);
  }

  /** The same operator making only some kinds of change. */
  public Confusables mode(Mode mode) {
    return new Confusables(rates, java.util.Objects.requireNonNull(mode, "mode"));
  }

  /** The look-alike of a Latin letter, or the letter itself when it has none here. */
  public static char lookAlike(char latin) {
    int i = LATIN.indexOf(latin);
    return i < 0 ? latin : CYRILLIC.charAt(i);
  }

  /** True for the zero-width characters this operator inserts. */
  public static boolean isZeroWidth(char c) {
    return c == '\u200B' || c == '\u200C' || c == '\u200D' || c == '\u2060';
  }

  @Override
  public String name() {
    return "confusables";
  }

  @Override
  public int levelCount() {
    return rates.length;
  }

  @Override
  public String describeLevel(int level) {
    Levels.checkLevel(this, level);
    return rates[level] + " changed words/word";
  }

  @Override
  public boolean preservesMeaning() {
    return true;
  }

  @Override
  public void apply(Draft draft, int level, SplittableRandom random) {
    Levels.checkLevel(this, level);
    String text = draft.text();
    Words words = draft.words(2);
    int edits = Levels.editsForRate(rates[level], words.count);
    if (edits == 0) {
      return;
    }
    Splicer splicer = new Splicer(text);
    for (int k : words.sample(edits, random)) {
      int s = words.start(k);
      int e = words.end(k);
      boolean confusable = mode == Mode.CONFUSABLES || (mode == Mode.BOTH && random.nextBoolean());
      if (confusable) {
        int n = e - s;
        int from = random.nextInt(n);
        int at = -1;
        for (int t = 0; t < n; t++) {
          int i = s + (from + t) % n;
          if (LATIN.indexOf(text.charAt(i)) >= 0) {
            at = i;
            break;
          }
        }
        if (at >= 0) {
          String replacement = String.valueOf(lookAlike(text.charAt(at)));
          splicer.replace(at, at + 1, replacement);
          draft.log(Channel.TEXT, "confusable", at, text.substring(at, at + 1), replacement);
          continue;
        }
      }
      int at = s + 1 + random.nextInt(e - s - 1);
      String zw = String.valueOf(ZERO_WIDTH[random.nextInt(ZERO_WIDTH.length)]);
      splicer.replace(at, at, zw);
      draft.log(Channel.TEXT, "zero-width", at, "", zw);
    }
    draft.splice(splicer);
  }

  @Override
  public String toString() {
    return "Confusables[rates " + Levels.list(rates) + ", " + mode + "]";
  }
}
