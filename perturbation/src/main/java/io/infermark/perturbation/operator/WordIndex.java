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
  /** Eligible-word counts by minimum length (index 0 unused), computed on first use; 0 = not yet. */
  private final int[] eligibleCounts = new int[8];

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

  /**
   * How many words are {@linkplain #eligible(int, int) eligible} at {@code minLength}. Cached (an
   * index may be shared between threads: racing threads compute and store the same value).
   */
  int eligibleCount(int minLength) {
    if (minLength >= 1 && minLength < eligibleCounts.length) {
      int cached = eligibleCounts[minLength];
      if (cached != 0) {
        return cached - 1;
      }
    }
    int n = countEligible(0, count, minLength);
    if (minLength >= 1 && minLength < eligibleCounts.length) {
      eligibleCounts[minLength] = n + 1;
    }
    return n;
  }

  /**
   * Caches {@link #eligibleCount(int)} for every cached minimum length in one pass, so that indexes
   * moved from this one by {@link #update} carry them all along instead of rescanning. Returns this.
   */
  WordIndex countAllEligible() {
    int[] byLength = new int[eligibleCounts.length];
    for (int id = 0; id < count; id++) {
      if (flags[id] == 0) {
        byLength[Math.min(end[id] - start[id], byLength.length - 1)]++;
      }
    }
    int n = 0;
    for (int len = byLength.length - 1; len >= 1; len--) {
      n += byLength[len];
      eligibleCounts[len] = n + 1;
    }
    return this;
  }

  /**
   * Adds {@code sign} to each cached count in {@code counts} (by minimum length, 0 = not cached) for
   * every word of {@code [from, to)} eligible at that length.
   */
  private void addEligible(int from, int to, int[] counts, int sign) {
    for (int id = from; id < to; id++) {
      if (flags[id] == 0) {
        int top = Math.min(end[id] - start[id], counts.length - 1);
        for (int len = 1; len <= top; len++) {
          if (counts[len] != 0) {
            counts[len] += sign;
          }
        }
      }
    }
  }

  /** How many of words {@code [from, to)} are eligible at {@code minLength}. */
  private int countEligible(int from, int to, int minLength) {
    int n = 0;
    for (int id = from; id < to; id++) {
      n += eligible(id, minLength) ? 1 : 0;
    }
    return n;
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
    return update(text, mask, splicer, null);
  }

  /**
   * {@link #update(String, boolean[], Splicer)}, building the result in {@code spare} (an index no
   * longer used, overwritten; not this one) when given, instead of a new index.
   */
  WordIndex update(String text, boolean[] mask, Splicer splicer, WordIndex spare) {
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
    WordIndex out;
    if (spare != null && spare != this) {
      out = spare;
      out.count = 0;
      java.util.Arrays.fill(out.eligibleCounts, 0);
      out.ensure(count + 2 * edits);
    } else {
      out = new WordIndex(count + 2 * edits + count / 8); // room to be reused as a spare later
    }
    // Read before out is cleared: a spare is never this index, but be safe about the order anyway.
    int[] counts = eligibleCounts.clone();
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
      int before = firstAtOrAfter(oldWs, old);
      out.copyShifted(this, old, before, shift[k]);
      old = firstAtOrAfter(oldWe, before);
      int scanned = out.count;
      out.scan(text, mask, ws, we);
      // Cached eligible counts move along: minus the window's old words, plus its rescanned ones.
      out.addEligible(scanned, out.count, counts, 1);
      addEligible(before, old, counts, -1);
      k = m + 1;
    }
    out.copyShifted(this, old, count, shift[edits]);
    System.arraycopy(counts, 0, out.eligibleCounts, 0, counts.length);
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

  /** The first word at or after {@code from} whose start is at or after {@code position}. */
  private int firstAtOrAfter(int position, int from) {
    // Linear: windows follow each other closely, so a predictable scan beats a binary search.
    int j = from;
    while (j < count && start[j] < position) {
      j++;
    }
    return j;
  }

  /** Appends words {@code [from, to)} of {@code source}, moved by {@code shift}. */
  private void copyShifted(WordIndex source, int from, int to, int shift) {
    int n = to - from;
    if (n <= 0) {
      return;
    }
    ensure(count + n);
    System.arraycopy(source.start, from, start, count, n);
    System.arraycopy(source.end, from, end, count, n);
    System.arraycopy(source.flags, from, flags, count, n);
    if (shift != 0) {
      for (int j = count; j < count + n; j++) {
        start[j] += shift;
        end[j] += shift;
      }
    }
    count += n;
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
