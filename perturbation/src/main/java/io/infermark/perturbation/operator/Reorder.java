package io.infermark.perturbation.operator;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Instruction reordering: at a level with {@code s} swaps, {@code s} distinct pairs of independent
 * sentence blocks are exchanged inside their paragraphs (paragraphs are separated by blank lines).
 *
 * <p>What is independent: a sentence ends at {@code .}, {@code !} or {@code ?} outside a protected
 * span followed by whitespace. A sentence that starts with a word pointing back or forward
 * ({@code this, that, these, those, it, they, then, next, finally, also, however, therefore, so,
 * and, but, after, before, afterwards, otherwise, instead}) stays glued to the one before it: they
 * move as one block. Paragraphs holding a code fence or a list (a line starting with {@code -},
 * {@code *} or a number and a dot) are never reordered: order is their meaning. A block without final
 * punctuation that stops being last gets a period. Separators stay where they were.
 *
 * <p>Meaning-preserving; protected spans move with their sentence but are never changed.
 */
public final class Reorder implements Operator {

  private static final Set<String> DEPENDENT = Set.of("this", "that", "these", "those", "it", "they", "then",
      "next", "finally", "also", "however", "therefore", "so", "and", "but", "after", "before", "afterwards",
      "otherwise", "instead");

  /** The dependent words by length. */
  private static final String[][] DEPENDENT_BY_LENGTH = byLength(DEPENDENT);
  private static final char[] MARKS = {'.', '!', '?'};

  private final int[] swaps;

  private Reorder(int[] swaps) {
    this.swaps = swaps;
  }

  /** One level per number of swaps (strictly increasing, >= 0), e.g. {@code Reorder.swaps(0, 1, 3)}. */
  public static Reorder swaps(int... swaps) {
    return new Reorder(Levels.checkCounts("reorder", swaps));
  }

  private static String[][] byLength(Set<String> words) {
    int max = 0;
    for (String w : words) {
      max = Math.max(max, w.length());
    }
    String[][] out = new String[max + 1][];
    for (int len = 0; len <= max; len++) {
      final int l = len;
      out[len] = words.stream().filter(w -> w.length() == l).sorted().toArray(String[]::new);
    }
    return out;
  }

  @Override
  public String name() {
    return "reorder";
  }

  @Override
  public int levelCount() {
    return swaps.length;
  }

  @Override
  public String describeLevel(int level) {
    Levels.checkLevel(this, level);
    return swaps[level] + " swaps";
  }

  @Override
  public boolean preservesMeaning() {
    return true;
  }

  /** A paragraph's movable blocks: {@code [start, end)} of each, plus the order they end up in. */
  private static final class Paragraph {
    final int start;
    final List<int[]> blocks = new ArrayList<>();
    int[] order;
    final Set<Long> swapped = new HashSet<>();

    Paragraph(int start) {
      this.start = start;
    }

    long pairs() {
      long b = blocks.size();
      return b * (b - 1) / 2;
    }
  }

  @Override
  public void apply(Draft draft, int level, SplittableRandom random) {
    Levels.checkLevel(this, level);
    int budget = swaps[level];
    if (budget == 0) {
      return;
    }
    String text = draft.text();
    boolean[] mask = draft.mask();
    List<Paragraph> paragraphs = paragraphs(text, mask);
    long available = 0;
    for (Paragraph p : paragraphs) {
      available += p.pairs();
    }
    int todo = (int) Math.min(budget, available);
    for (int s = 0; s < todo; s++) {
      // Draw among the pairs not yet swapped, uniformly over paragraphs' remaining pairs.
      long remaining = 0;
      for (Paragraph p : paragraphs) {
        remaining += p.pairs() - p.swapped.size();
      }
      long pick = random.nextLong(remaining);
      Paragraph chosen = null;
      for (Paragraph p : paragraphs) {
        long left = p.pairs() - p.swapped.size();
        if (pick < left) {
          chosen = p;
          break;
        }
        pick -= left;
      }
      int n = chosen.blocks.size();
      int i;
      int j;
      long key;
      do {
        i = random.nextInt(n);
        j = random.nextInt(n - 1);
        if (j >= i) {
          j++;
        }
        key = (long) Math.min(i, j) * n + Math.max(i, j);
      } while (!chosen.swapped.add(key));
      int t = chosen.order[i];
      chosen.order[i] = chosen.order[j];
      chosen.order[j] = t;
      int[] a = chosen.blocks.get(chosen.order[j]);
      int[] b = chosen.blocks.get(chosen.order[i]);
      draft.log(Channel.TEXT, "swap", chosen.start, text.substring(a[0], a[1]), text.substring(b[0], b[1]));
    }
    Splicer splicer = new Splicer(text);
    for (Paragraph p : paragraphs) {
      int n = p.blocks.size();
      for (int slot = 0; slot < n; slot++) {
        if (p.order[slot] == slot) {
          continue;
        }
        int[] target = p.blocks.get(slot);
        int[] source = p.blocks.get(p.order[slot]);
        String moved = text.substring(source[0], source[1]);
        if (slot < n - 1 && !endsSentence(moved)) {
          moved += ".";
        }
        splicer.replace(target[0], target[1], moved);
      }
    }
    draft.replace(splicer);
  }

  private static boolean endsSentence(String s) {
    char c = s.charAt(s.length() - 1);
    return c == '.' || c == '!' || c == '?';
  }

  private static List<Paragraph> paragraphs(String text, boolean[] mask) {
    List<Paragraph> out = new ArrayList<>();
    int n = text.length();
    int ps = 0;
    int fence = text.indexOf("```");
    int[] next = {-1, -1, -1};
    while (ps < n) {
      int pe = text.indexOf("\n\n", ps);
      if (pe < 0) {
        pe = n;
      }
      if (fence >= 0 && fence < ps) {
        fence = text.indexOf("```", ps);
      }
      // The first fence at or after ps lies inside the paragraph: order is its meaning.
      boolean fenced = fence >= 0 && fence + 3 <= pe;
      Paragraph p = fenced ? null : blocks(text, mask, ps, pe, next);
      if (p != null && p.blocks.size() >= 2) {
        p.order = new int[p.blocks.size()];
        for (int i = 0; i < p.order.length; i++) {
          p.order[i] = i;
        }
        out.add(p);
      }
      ps = pe + 2;
    }
    return out;
  }

  private static Paragraph blocks(String text, boolean[] mask, int ps, int pe, int[] next) {
    if (hasListLine(text, ps, pe)) {
      return null;
    }
    Paragraph p = new Paragraph(ps);
    int i = ps;
    while (i < pe && Chars.isWhitespace(text.charAt(i))) {
      i++;
    }
    int sentenceStart = i;
    while (i < pe) {
      i = nextBoundary(text, mask, i, pe, next);
      int end = i + 1;
      while (end > sentenceStart && Chars.isWhitespace(text.charAt(end - 1))) {
        end--;
      }
      if (end > sentenceStart) {
        addSentence(p, text, sentenceStart, end);
      }
      i++;
      while (i < pe && Chars.isWhitespace(text.charAt(i))) {
        i++;
      }
      sentenceStart = i;
    }
    return p;
  }

  /**
   * The next sentence end at or after {@code i}: a {@code .}, {@code !} or {@code ?} outside a
   * protected span followed by whitespace, or the paragraph's last character. {@code next} caches,
   * across calls, the next position of each mark (found with {@link String#indexOf(int, int)}).
   */
  private static int nextBoundary(String text, boolean[] mask, int i, int pe, int[] next) {
    int from = i;
    while (true) {
      int t = Integer.MAX_VALUE;
      for (int m = 0; m < MARKS.length; m++) {
        if (next[m] < from) {
          int at = text.indexOf(MARKS[m], from);
          next[m] = at < 0 ? Integer.MAX_VALUE : at;
        }
        t = Math.min(t, next[m]);
      }
      if (t >= pe - 1) {
        return pe - 1;
      }
      if (!mask[t] && Chars.isWhitespace(text.charAt(t + 1))) {
        return t;
      }
      from = t + 1;
    }
  }

  private static void addSentence(Paragraph p, String text, int start, int end) {
    if (!p.blocks.isEmpty() && isDependent(text, start, end)) {
      p.blocks.get(p.blocks.size() - 1)[1] = end;
    } else {
      p.blocks.add(new int[] {start, end});
    }
  }

  private static boolean isDependent(String text, int start, int end) {
    int e = start;
    boolean ascii = true;
    while (e < end && Chars.isLetter(text.charAt(e))) {
      ascii &= text.charAt(e) < 128;
      e++;
    }
    if (!ascii) {
      return DEPENDENT.contains(text.substring(start, e).toLowerCase(Locale.ROOT));
    }
    // ASCII: comparing ASCII-lowercased characters equals comparing the lowercase form, without allocating.
    int len = e - start;
    if (len >= DEPENDENT_BY_LENGTH.length) {
      return false;
    }
    for (String w : DEPENDENT_BY_LENGTH[len]) {
      int i = 0;
      while (i < len && lowerAscii(text.charAt(start + i)) == w.charAt(i)) {
        i++;
      }
      if (i == len) {
        return true;
      }
    }
    return false;
  }

  private static char lowerAscii(char c) {
    return c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
  }

  private static boolean hasListLine(String text, int ps, int pe) {
    int line = ps;
    while (line < pe) {
      int i = line;
      while (i < pe && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
        i++;
      }
      if (i < pe) {
        char c = text.charAt(i);
        if ((c == '-' || c == '*') && i + 1 < pe && text.charAt(i + 1) == ' ') {
          return true;
        }
        int d = i;
        while (d < pe && Chars.isDigit(text.charAt(d))) {
          d++;
        }
        if (d > i && d < pe && (text.charAt(d) == '.' || text.charAt(d) == ')')) {
          return true;
        }
      }
      int nl = text.indexOf('\n', line);
      if (nl < 0 || nl >= pe) {
        break;
      }
      line = nl + 1;
    }
    return false;
  }

  @Override
  public String toString() {
    return "Reorder[swaps " + Levels.list(swaps) + "]";
  }
}
