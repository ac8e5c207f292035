package io.infermark.perturbation.operator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Synonyms for {@link Synonyms}: lowercase single words mapped to the words that may replace them.
 * Immutable; the user supplies it (a domain's vocabulary matters more than a general thesaurus).
 */
public final class Lexicon {

  private final Map<String, List<String>> entries;
  private final int minLength;
  private final int maxLength;
  /** ASCII keys in an open-addressing table (hash = String.hashCode), for allocation-free lookups. */
  private final String[] asciiKeys;
  private final List<?>[] asciiValues;
  /** Per key length, a bit per lowercase ASCII first letter some key of that length starts with. */
  private final int[] firstLetters;

  private Lexicon(Map<String, List<String>> entries) {
    this.entries = entries;
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (String k : entries.keySet()) {
      min = Math.min(min, k.length());
      max = Math.max(max, k.length());
    }
    this.minLength = min;
    this.maxLength = max;
    this.firstLetters = new int[max + 1];
    int size = Integer.highestOneBit(Math.max(4, entries.size() * 4 - 1)) << 1;
    this.asciiKeys = new String[size];
    this.asciiValues = new List<?>[size];
    for (Map.Entry<String, List<String>> e : entries.entrySet()) {
      String key = e.getKey();
      char first = key.charAt(0);
      if (first >= 'a' && first <= 'z') {
        firstLetters[key.length()] |= 1 << (first - 'a');
      }
      if (isAscii(key)) {
        int slot = key.hashCode() & (size - 1);
        while (asciiKeys[slot] != null) {
          slot = (slot + 1) & (size - 1);
        }
        asciiKeys[slot] = key;
        asciiValues[slot] = e.getValue();
      }
    }
  }

  /**
   * A lexicon of the given entries. Keys and synonyms are single words of letters (apostrophes
   * allowed); keys are matched case-insensitively. The relation is not made symmetric.
   */
  public static Lexicon of(Map<String, List<String>> entries) {
    Map<String, List<String>> copy = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> e : entries.entrySet()) {
      String key = e.getKey().toLowerCase(Locale.ROOT);
      checkWord("key", key);
      if (e.getValue().isEmpty()) {
        throw new IllegalArgumentException("lexicon entry '" + key + "' has no synonyms");
      }
      List<String> alts = new ArrayList<>();
      for (String alt : e.getValue()) {
        checkWord("synonym of '" + key + "'", alt);
        alts.add(alt.toLowerCase(Locale.ROOT));
      }
      copy.put(key, List.copyOf(alts));
    }
    if (copy.isEmpty()) {
      throw new IllegalArgumentException("a lexicon needs at least one entry");
    }
    return new Lexicon(Collections.unmodifiableMap(copy));
  }

  /**
   * Parses lines of the form {@code word: synonym, synonym}; blank lines and lines starting with
   * {@code #} are skipped.
   */
  public static Lexicon parse(String lines) {
    Map<String, List<String>> entries = new LinkedHashMap<>();
    int n = 0;
    for (String line : lines.split("\n", -1)) {
      n++;
      String t = line.strip();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      int colon = t.indexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("lexicon line " + n + " is not 'word: synonym, ...': " + t);
      }
      List<String> alts = new ArrayList<>();
      for (String a : t.substring(colon + 1).split(",")) {
        if (!a.isBlank()) {
          alts.add(a.strip());
        }
      }
      entries.put(t.substring(0, colon).strip(), alts);
    }
    return of(entries);
  }

  private static void checkWord(String what, String w) {
    if (w.isEmpty()) {
      throw new IllegalArgumentException("lexicon " + what + " is empty");
    }
    for (int i = 0; i < w.length(); i++) {
      char c = w.charAt(i);
      if (!Character.isLetter(c) && c != '\'') {
        throw new IllegalArgumentException("lexicon " + what + " must be one word of letters, was '" + w + "'");
      }
    }
  }

  /** The synonyms of a word (any case), if it has an entry. */
  public Optional<List<String>> synonyms(String word) {
    if (word.length() < minLength || word.length() > maxLength) {
      return Optional.empty();
    }
    return Optional.ofNullable(entries.get(word.toLowerCase(Locale.ROOT)));
  }

  /**
   * {@code synonyms(text.substring(start, end)).orElse(null)} without allocating for ASCII words.
   * Package-private: the hot path of {@link Synonyms}.
   */
  @SuppressWarnings("unchecked")
  List<String> lookup(String text, int start, int end) {
    int len = end - start;
    if (len < minLength || len > maxLength) {
      return null;
    }
    char first = text.charAt(start);
    char lowerFirst = first >= 'A' && first <= 'Z' ? (char) (first + 32) : first;
    if (lowerFirst >= 'a' && lowerFirst <= 'z' && (firstLetters[len] & (1 << (lowerFirst - 'a'))) == 0) {
      return null; // no key of this length starts with this letter (in any case)
    }
    int h = 0;
    for (int i = start; i < end; i++) {
      char c = text.charAt(i);
      if (c >= 128) {
        return entries.get(text.substring(start, end).toLowerCase(Locale.ROOT));
      }
      h = 31 * h + (c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    int mask = asciiKeys.length - 1;
    for (int slot = h & mask; asciiKeys[slot] != null; slot = (slot + 1) & mask) {
      String key = asciiKeys[slot];
      if (key.length() == len && key.hashCode() == h && matchesLower(key, text, start)) {
        return (List<String>) asciiValues[slot];
      }
    }
    return null;
  }

  private static boolean matchesLower(String key, String text, int start) {
    for (int i = 0; i < key.length(); i++) {
      char c = text.charAt(start + i);
      if ((c >= 'A' && c <= 'Z' ? (char) (c + 32) : c) != key.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isAscii(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) >= 128) {
        return false;
      }
    }
    return true;
  }

  /** The entries. */
  public Map<String, List<String>> entries() {
    return entries;
  }

  @Override
  public String toString() {
    return "Lexicon[" + entries.size() + " entries]";
  }
}
