package io.infermark.perturbation.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.tokens.TokenCounter;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The fast paths behind one perturbation (the table-driven protected-span mask, the word index moved
 * along with splices, allocation-free lexicon lookups, sparse sampling) against straightforward
 * reference versions, on random texts built from the characters where the rules have edge cases.
 */
class FastScansTest {

  /** Characters at the rules' edges: letters, digits, joiners, apostrophes, quotes, code, Unicode. */
  private static final String[] PIECES = {"a", "b", "Z", "river", "Main", "RISK", "old", " ", " ", " ", "\n", "\n\n",
      "\t", "'", "\"", "`", "```", ".", ",", "-", ":", "/", "_", "1", "2024", "3.14", "!", "?", ";", "\u201C",
      "\u201D", "\u0430", "\u00E9t\u00E9", "\u200B", "\u0130t", "\u212Aeeps", "x_y", "ORDER-12"};

  private static String randomText(SplittableRandom random, int pieces) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < pieces; i++) {
      s.append(PIECES[random.nextInt(PIECES.length)]);
    }
    return s.toString();
  }

  @Test
  void protectedMaskEqualsTheWholeWordScanOnRandomTexts() {
    SplittableRandom random = new SplittableRandom(1);
    for (int t = 0; t < 3000; t++) {
      String text = randomText(random, random.nextInt(60));
      assertThat(ProtectedSpans.mask(text)).as("mask of '%s'", text).isEqualTo(referenceMask(text));
    }
  }

  @Test
  void wordIndexMovedAlongSplicesEqualsAFreshScan() {
    SplittableRandom random = new SplittableRandom(2);
    for (int t = 0; t < 2000; t++) {
      String text = randomText(random, 5 + random.nextInt(60));
      boolean[] mask = ProtectedSpans.mask(text);
      WordIndex index = WordIndex.scan(text, mask);
      assertThat(words(index)).as("scan of '%s'", text).isEqualTo(referenceWords(text, mask));
      if (random.nextBoolean()) {
        index.countAllEligible();
      } else {
        index.eligibleCount(1 + random.nextInt(7));
      }
      for (int round = 0; round < 3; round++) {
        Splicer splicer = new Splicer(text);
        int at = 0;
        // Random non-overlapping replacements, added out of order to exercise the sort.
        int[][] edits = new int[random.nextInt(6)][];
        int e = 0;
        while (e < edits.length && at < text.length()) {
          int from = at + random.nextInt(text.length() - at + 1);
          int to = Math.min(text.length(), from + random.nextInt(4));
          edits[e++] = new int[] {from, to};
          at = to + 1;
        }
        for (int k = e - 1; k >= 0; k--) {
          splicer.replace(edits[k][0], edits[k][1], randomText(random, random.nextInt(3)));
        }
        String out = splicer.apply(mask);
        boolean[] moved = splicer.movedMask();
        index = index.update(out, moved, splicer);
        assertThat(words(index)).as("'%s' -> '%s'", text, out).isEqualTo(referenceWords(out, moved));
        // Eligible counts carried through the update equal those of a fresh scan.
        WordIndex fresh = WordIndex.scan(out, moved);
        for (int len = 1; len <= 9; len++) {
          assertThat(index.eligibleCount(len)).as("eligible at %d in '%s'", len, out).isEqualTo(fresh.eligibleCount(len));
        }
        text = out;
        mask = moved;
      }
    }
  }

  @Test
  void draftTokenCountAndRecycledIndexAfterSplicesEqualFreshOnes() {
    SplittableRandom random = new SplittableRandom(3);
    TokenCounter[] counters = {TokenCounter.estimate(), TokenCounter.estimate(2.0)};
    for (int t = 0; t < 2000; t++) {
      String base = randomText(random, random.nextInt(60));
      Draft.Prepared prepared = Draft.prepare(base);
      Draft draft = new Draft(prepared, java.util.Optional.empty());
      for (int round = 0; round < 4; round++) {
        String text = draft.text();
        Splicer splicer = new Splicer(text);
        int at = 0;
        int[][] edits = new int[random.nextInt(6)][];
        int e = 0;
        while (e < edits.length && at <= text.length()) {
          int from = at + random.nextInt(text.length() - at + 1);
          int to = Math.min(text.length(), from + random.nextInt(5));
          edits[e++] = new int[] {from, to};
          at = to + random.nextInt(2);
        }
        for (int k = e - 1; k >= 0; k--) {
          splicer.replace(edits[k][0], edits[k][1], randomText(random, random.nextInt(3)));
        }
        if (random.nextBoolean()) {
          boolean[] before = draft.protectedMask();
          draft.splice(splicer);
          // The moved mask (maybe written into a recycled array) equals one moved into a fresh array.
          splicer.apply(before);
          assertThat(draft.protectedMask()).isEqualTo(splicer.movedMask());
        } else {
          draft.replace(splicer);
        }
        if (random.nextBoolean()) {
          // The index built in a recycled spare equals a fresh scan (and the mask is only as long as the text).
          assertThat(words(draft.wordIndex())).isEqualTo(words(WordIndex.scan(draft.text(), draft.mask())));
          assertThat(draft.protectedMask()).hasSize(draft.text().length());
        }
        for (TokenCounter counter : counters) {
          assertThat(draft.tokens(counter)).as("'%s' -> '%s'", base, draft.text()).isEqualTo(counter.count(draft.text()));
        }
      }
      draft.text(draft.text() + " tail");
      assertThat(draft.tokens(counters[0])).isEqualTo(counters[0].count(draft.text()));
    }
  }

  @Test
  void draftFoldsAPendingSpliceBeforeTheNext() {
    Draft draft = new Draft("one two three four five", java.util.Optional.empty());
    assertThat(draft.words(1).count).isEqualTo(5);
    Splicer first = new Splicer(draft.text());
    first.replace(3, 4, "1");
    draft.splice(first);
    Splicer second = new Splicer(draft.text());
    second.replace(8, 8, "x");
    draft.splice(second);
    assertThat(draft.text()).isEqualTo("one1two xthree four five");
    assertThat(words(draft.wordIndex())).isEqualTo(referenceWords(draft.text(), draft.protectedMask()));
    assertThat(draft.words(1).count).isEqualTo(3);
  }

  @Test
  void lexiconLookupEqualsSynonymsOfTheSubstring() {
    Lexicon lexicon = Lexicon.of(java.util.Map.of("river", List.of("stream"), "old", List.of("aged"),
        "keeps", List.of("holds"), "\u00E9t\u00E9", List.of("summer"), "risk", List.of("hazard"), "a", List.of("an")));
    SplittableRandom random = new SplittableRandom(3);
    for (int t = 0; t < 3000; t++) {
      String text = randomText(random, 1 + random.nextInt(8));
      int s = random.nextInt(text.length());
      int e = s + random.nextInt(text.length() - s + 1);
      assertThat(lexicon.lookup(text, s, e)).as("'%s'", text.substring(s, e))
          .isEqualTo(lexicon.synonyms(text.substring(s, e)).orElse(null));
    }
    assertThat(lexicon.lookup("The RIVER", 4, 9)).containsExactly("stream");
    assertThat(lexicon.lookup("\u212Aeeps", 0, 5)).containsExactly("holds");
    assertThat(lexicon.lookup("\u00C9T\u00C9", 0, 3)).containsExactly("summer");
  }

  @Test
  void sparseSamplingDrawsWhatTheFullShuffleDraws() {
    SplittableRandom seeds = new SplittableRandom(4);
    for (int t = 0; t < 2000; t++) {
      int n = 1 + seeds.nextInt(5000);
      int k = seeds.nextInt(Math.min(n, 200) + 1);
      long seed = seeds.nextLong();
      assertThat(Levels.sample(n, k, new SplittableRandom(seed)))
          .isEqualTo(referenceSample(n, k, new SplittableRandom(seed)));
    }
  }

  // ---- reference versions: the straightforward algorithms the fast paths replace ----

  /** Left-to-right scan of whole words, quotes and code. */
  private static boolean[] referenceMask(String text) {
    int n = text.length();
    boolean[] mask = new boolean[n];
    int i = 0;
    while (i < n) {
      char c = text.charAt(i);
      if (c == '`') {
        if (text.startsWith("```", i)) {
          int close = text.indexOf("```", i + 3);
          int end = close < 0 ? n : close + 3;
          Arrays.fill(mask, i, end, true);
          i = end;
          continue;
        }
        int close = -1;
        for (int j = i + 1; j < n && text.charAt(j) != '\n'; j++) {
          if (text.charAt(j) == '`') {
            close = j;
            break;
          }
        }
        if (close > 0) {
          Arrays.fill(mask, i, close + 1, true);
          i = close + 1;
          continue;
        }
      } else if (c == '"' || c == '\u201C') {
        int close = text.indexOf(c == '"' ? '"' : '\u201D', i + 1);
        if (close > 0) {
          Arrays.fill(mask, i, close + 1, true);
          i = close + 1;
          continue;
        }
      } else if (Character.isLetterOrDigit(c) || c == '_') {
        int end = i;
        boolean digit = false;
        while (end < n && (Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '_'
            || joiner(text, end))) {
          digit |= Character.isDigit(text.charAt(end));
          end++;
        }
        if (digit) {
          Arrays.fill(mask, i, end, true);
        }
        i = end;
        continue;
      }
      i++;
    }
    return mask;
  }

  private static boolean joiner(String text, int i) {
    char c = text.charAt(i);
    if (".,-:/".indexOf(c) < 0 || i == 0 || i + 1 >= text.length()) {
      return false;
    }
    char prev = text.charAt(i - 1);
    char next = text.charAt(i + 1);
    return (Character.isLetterOrDigit(prev) || prev == '_') && Character.isLetterOrDigit(next)
        && (Character.isDigit(prev) || Character.isDigit(next) || c == '-');
  }

  private static List<String> words(WordIndex index) {
    List<String> out = new java.util.ArrayList<>();
    for (int j = 0; j < index.count(); j++) {
      out.add(index.describe(j));
    }
    return out;
  }

  /** Every maximal run of letters (apostrophes between letters inside), flagged protected / glued. */
  private static List<String> referenceWords(String text, boolean[] mask) {
    List<String> out = new java.util.ArrayList<>();
    int n = text.length();
    int i = 0;
    while (i < n) {
      if (!Character.isLetter(text.charAt(i))) {
        i++;
        continue;
      }
      int s = i;
      boolean prot = false;
      while (i < n && (Character.isLetter(text.charAt(i))
          || (text.charAt(i) == '\'' && i + 1 < n && Character.isLetter(text.charAt(i + 1))))) {
        prot |= mask[i];
        i++;
      }
      boolean glued = (s > 0 && ident(text.charAt(s - 1))) || (i < n && ident(text.charAt(i)));
      out.add(s + "-" + i + (prot ? "p" : "") + (glued ? "g" : ""));
    }
    return out;
  }

  private static boolean ident(char c) {
    return Character.isDigit(c) || c == '_';
  }

  private static int[] referenceSample(int n, int k, SplittableRandom random) {
    int[] idx = new int[n];
    for (int i = 0; i < n; i++) {
      idx[i] = i;
    }
    for (int i = 0; i < k; i++) {
      int j = i + random.nextInt(n - i);
      int t = idx[i];
      idx[i] = idx[j];
      idx[j] = t;
    }
    int[] out = Arrays.copyOf(idx, k);
    Arrays.sort(out);
    return out;
  }
}
