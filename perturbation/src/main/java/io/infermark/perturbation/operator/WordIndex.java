package io.infermark.perturbation.operator;

/**
 * Every word of a draft's text (a maximal run of letters, apostrophes inside counting), with
 * whether any of its characters is protected and whether it is glued to a digit or underscore.
 * Built by one scan, then moved along with each splice by rescanning only the whitespace-bounded
 * stretches around the replaced ranges: the result always equals a fresh {@link #scan}.
 * Package-private helper.
 */
final class WordIndex {

  private static final byte PROTECTED = 1;
  private static final byte GLUED = 2;

  private int[] start;
  private int[] end;
  private byte[] flags;
  private int count;

  private WordIndex(int capacity) {
    start = new int[Math.max(16, capacity)];
    end = new int[start.length];
    flags = new byte[start.length];
  }

  /** The words of {@code text}, protection read from {@code mask}. */
  static WordIndex scan(String text, boolean[] mask) {
    WordIndex w = new WordIndex(text.length() / 5);
    w.scan(text, mask, 0, text.length());
    return w;
  }

  /** The number of words. */
  int count() {
    return count;
  }

  /** The words that are neither protected nor glued and have at least {@code minLength} characters. */
  Words eligible(int minLength) {
    return new Words(this, minLength);
  }

  /** Whether word {@code id} is neither protected nor glued and has at least {@code minLength} characters. */
  boolean eligible(int id, int minLength) {
    return flags[id] == 0 & end[id] - start[id] >= minLength;
  }

  int start(int id) {
    return start[id];
  }

  int end(int id) {
    return end[id];
  }

  /**
   * The index of {@code text}, which is this index's text after {@code splicer} was applied
   * ({@code mask} being the moved mask).
   */
  WordIndex update(String text, boolean[] mask, Splicer splicer) {
    int edits = splicer.size();
    if (edits == 0) {
      return this;
    }
    // shift[k]: how far kept characters just before replacement k moved (new minus old position).
    int[] shift = new int[edits + 1];
    for (int k = 0; k < edits; k++) {
      shift[k + 1] = shift[k] + splicer.length(k) - (splicer.to(k) - splicer.from(k));
    }
    int n = text.length();
    WordIndex out = new WordIndex(count + 2 * edits);
    int old = 0;
    int k = 0;
    while (k < edits) {
      // Window [ws, we) of the new text: the replaced ranges k..m and the text around them out to
      // whitespace on both sides. A word never spans whitespace and the characters at ws - 1 and we
      // are kept ones, so words outside windows are old words, moved, with unchanged flags.
      int ws = splicer.from(k) + shift[k];
      while (ws > 0 && !Chars.isWhitespace(text.charAt(ws - 1))) {
        ws--;
      }
      int m = k;
      int we = splicer.from(m) + shift[m] + splicer.length(m);
      while (true) {
        while (we < n && !Chars.isWhitespace(text.charAt(we)) && !(m + 1 < edits && splicer.from(m + 1) + shift[m + 1] <= we)) {
          we++;
        }
        if (m + 1 < edits && splicer.from(m + 1) + shift[m + 1] <= we) {
          m++;
          we = Math.max(we, splicer.from(m) + shift[m] + splicer.length(m));
          continue;
        }
        break;
      }
      int oldWs = ws - shift[k];
      int oldWe = we - shift[m + 1];
      while (old < count && start[old] < oldWs) {
        out.add(start[old] + shift[k], end[old] + shift[k], flags[old]);
        old++;
      }
      while (old < count && start[old] < oldWe) {
        old++;
      }
      out.scan(text, mask, ws, we);
      k = m + 1;
    }
    while (old < count) {
      out.add(start[old] + shift[edits], end[old] + shift[edits], flags[old]);
      old++;
    }
    return out;
  }

  /**
   * Appends the words starting in {@code [from, to)}, where {@code from} is 0 or follows whitespace
   * and {@code to} is the text's end or at whitespace, so no word crosses either end.
   */
  private void scan(String text, boolean[] mask, int from, int to) {
    int n = text.length();
    int i = from;
    // Locals, not fields, in the loop: the JIT keeps them in registers.
    int c = count;
    int[] st = start;
    int[] en = end;
    byte[] fl = flags;
    while (i < to) {
      if (!Chars.isLetter(text.charAt(i))) {
        i++;
        continue;
      }
      int s = i;
      boolean prot = false;
      while (i < n) {
        char x = text.charAt(i);
        if (!Chars.isLetter(x) && !(x == '\'' && i + 1 < n && Chars.isLetter(text.charAt(i + 1)))) {
          break;
        }
        prot |= mask[i];
        i++;
      }
      // Letters glued to digits or underscores belong to an identifier, not a word.
      boolean glued = (s > 0 && isIdent(text.charAt(s - 1))) || (i < n && isIdent(text.charAt(i)));
      if (c == st.length) {
        count = c;
        ensure(c + 1);
        st = start;
        en = end;
        fl = flags;
      }
      st[c] = s;
      en[c] = i;
      fl[c] = (byte) ((prot ? PROTECTED : 0) | (glued ? GLUED : 0));
      c++;
    }
    count = c;
  }

  private void ensure(int capacity) {
    if (capacity > start.length) {
      int size = Math.max(capacity, start.length * 2);
      start = java.util.Arrays.copyOf(start, size);
      end = java.util.Arrays.copyOf(end, size);
      flags = java.util.Arrays.copyOf(flags, size);
    }
  }

  private void add(int s, int e, byte f) {
    if (count == start.length) {
      start = java.util.Arrays.copyOf(start, count * 2);
      end = java.util.Arrays.copyOf(end, count * 2);
      flags = java.util.Arrays.copyOf(flags, count * 2);
    }
    start[count] = s;
    end[count] = e;
    flags[count] = f;
    count++;
  }

  static boolean isIdent(char c) {
    return Chars.isDigit(c) || c == '_';
  }

  /** Word {@code j} as {@code start-end} plus {@code p} (protected) and {@code g} (glued), for tests. */
  String describe(int j) {
    return start[j] + "-" + end[j] + ((flags[j] & PROTECTED) != 0 ? "p" : "") + ((flags[j] & GLUED) != 0 ? "g" : "");
  }

  @Override
  public String toString() {
    return "WordIndex[" + count + " words]";
  }
}
