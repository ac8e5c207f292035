package io.infermark.perturbation.operator;

import java.util.SplittableRandom;

/**
 * Typos within an edit budget: at a level with budget {@code b}, {@code min(b, words)} distinct
 * eligible words of at least three letters each get exactly one edit, chosen uniformly among
 * {@code "swap"} (two adjacent, different letters exchanged), {@code "drop"} (a letter deleted),
 * {@code "insert"} (a QWERTY keyboard neighbour of a letter inserted beside it) and
 * {@code "substitute"} (a letter replaced by a keyboard neighbour). Each edit is one
 * Damerau–Levenshtein operation, so the variant is within {@code b} edits of its input. Case is kept.
 *
 * <p>Meaning-preserving; protected spans (numbers, identifiers, code, quotes) are left alone.
 */
public final class Typos implements Operator {

  private static final String[] NEIGHBOURS = new String[26];

  static {
    String[] rows = {"qwertyuiop", "asdfghjkl", "zxcvbnm"};
    for (int r = 0; r < rows.length; r++) {
      for (int c = 0; c < rows[r].length(); c++) {
        StringBuilder s = new StringBuilder();
        for (int dr = -1; dr <= 1; dr++) {
          int rr = r + dr;
          if (rr < 0 || rr >= rows.length) {
            continue;
          }
          // Rows are staggered by about half a key: a key touches columns c-1..c on the row above
          // (c..c+1 as seen from below) and c-1..c+1 on its own row.
          int lo = dr == 0 ? c - 1 : dr < 0 ? c : c - 1;
          int hi = dr == 0 ? c + 1 : dr < 0 ? c + 1 : c;
          for (int cc = lo; cc <= hi; cc++) {
            if (cc >= 0 && cc < rows[rr].length() && !(dr == 0 && cc == c)) {
              s.append(rows[rr].charAt(cc));
            }
          }
        }
        NEIGHBOURS[rows[r].charAt(c) - 'a'] = s.toString();
      }
    }
  }

  private final int[] budgets;

  private Typos(int[] budgets) {
    this.budgets = budgets;
  }

  /** One level per edit budget (strictly increasing, >= 0), e.g. {@code Typos.budgets(0, 1, 3, 8)}. */
  public static Typos budgets(int... budgets) {
    return new Typos(Levels.checkCounts("typos", budgets));
  }

  /** The QWERTY keys next to a lowercase ASCII letter, e.g. {@code "wrsd"} for {@code 'e'}. */
  public static String keyboardNeighbours(char letter) {
    char c = Character.toLowerCase(letter);
    if (c < 'a' || c > 'z') {
      throw new IllegalArgumentException("keyboard neighbours are defined for ASCII letters, not '" + letter + "'");
    }
    return NEIGHBOURS[c - 'a'];
  }

  @Override
  public String name() {
    return "typos";
  }

  @Override
  public int levelCount() {
    return budgets.length;
  }

  @Override
  public String describeLevel(int level) {
    Levels.checkLevel(this, level);
    return budgets[level] + " edits";
  }

  @Override
  public boolean preservesMeaning() {
    return true;
  }

  @Override
  public void apply(Draft draft, int level, SplittableRandom random) {
    Levels.checkLevel(this, level);
    int budget = budgets[level];
    if (budget == 0) {
      return;
    }
    String text = draft.text();
    Words words = draft.words(3);
    Splicer splicer = new Splicer(text);
    for (int k : words.sample(budget, random)) {
      int s = words.start(k);
      String w = words.word(text, k);
      String kind;
      String typo;
      int attempt = 0;
      do {
        kind = KINDS[random.nextInt(KINDS.length)];
        typo = edit(w, kind, random);
        attempt++;
      } while (typo == null && attempt < 8);
      if (typo == null) {
        kind = "drop";
        typo = edit(w, kind, random);
      }
      splicer.replace(s, s + w.length(), typo);
      draft.log(Channel.TEXT, kind, s, w, typo);
    }
    draft.splice(splicer);
  }

  private static final String[] KINDS = {"swap", "drop", "insert", "substitute"};

  /** One edit of {@code w}, or null when this kind cannot apply to it (no ASCII letter, no differing pair). */
  private static String edit(String w, String kind, SplittableRandom random) {
    int n = w.length();
    switch (kind) {
      case "swap" -> {
        int start = random.nextInt(n - 1);
        for (int t = 0; t < n - 1; t++) {
          int i = (start + t) % (n - 1);
          char a = w.charAt(i);
          char b = w.charAt(i + 1);
          if (a != b && a != '\'' && b != '\'') {
            return w.substring(0, i) + b + a + w.substring(i + 2);
          }
        }
        return null;
      }
      case "drop" -> {
        int i = random.nextInt(n);
        if (w.charAt(i) == '\'') {
          i = 0;
        }
        return w.substring(0, i) + w.substring(i + 1);
      }
      default -> {
        int start = random.nextInt(n);
        for (int t = 0; t < n; t++) {
          int i = (start + t) % n;
          char c = w.charAt(i);
          char lower = Character.toLowerCase(c);
          if (lower < 'a' || lower > 'z') {
            continue;
          }
          String near = NEIGHBOURS[lower - 'a'];
          char pick = near.charAt(random.nextInt(near.length()));
          if (Character.isUpperCase(c)) {
            pick = Character.toUpperCase(pick);
          }
          return kind.equals("insert") ? w.substring(0, i + 1) + pick + w.substring(i + 1)
              : w.substring(0, i) + pick + w.substring(i + 1);
        }
        return null;
      }
    }
  }

  @Override
  public String toString() {
    return "Typos[budgets " + Levels.list(budgets) + "]";
  }
}
