package io.infermark.core.tokens;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The common short English words synthetic prompts are made of (see
 * {@code workload.SyntheticText}). Each is exactly one token under {@link TokenCounter#estimate()}
 * and under OpenAI's {@code cl100k_base} and {@code o200k_base} vocabularies, with or without its leading space; as
 * those vocabularies split text into words before merging, a text of n such words separated by single spaces is
 * n tokens. So a counter of those vocabularies counts such a text without loading the vocabulary (a few hundred
 * milliseconds of CPU): a run of synthetic prompts pays for no tokenizer at all.
 */
public final class CommonWords {

  private static final String[] WORDS = (
      "the of and to in is was for on that with as by at from his her they be this have not are but had one "
      + "all were we when there can an which their said if do will each about how up out them then she many "
      + "some so these would other into has more two like him see time could no make than first been its who "
      + "now my made over did down only way find use may water long very after just where most know").split(" ");
  private static final Set<String> SET = new HashSet<>(Arrays.asList(WORDS));
  private static final List<String> LIST = List.of(WORDS);

  private CommonWords() {}

  /** The words, in a fixed order. */
  public static List<String> list() {
    return LIST;
  }

  /** Word {@code i} of the list. */
  public static String get(int i) {
    return WORDS[i];
  }

  /** How many words there are. */
  public static int size() {
    return WORDS.length;
  }

  /**
   * The number of words in {@code text} when it is nothing but words of the list separated by single spaces
   * (empty text: 0); -1 for any other text.
   */
  public static int countIfOnlyCommonWords(CharSequence text) {
    int n = text.length();
    if (n == 0) {
      return 0;
    }
    int words = 0;
    int start = 0;
    for (int i = 0; i <= n; i++) {
      if (i == n || text.charAt(i) == ' ') {
        if (i == start || i - start > 5 || !SET.contains(text.subSequence(start, i).toString())) {
          return -1; // a double space, a leading or trailing one, or a word not on the list
        }
        words++;
        start = i + 1;
      }
    }
    return words;
  }
}
