package io.infermark.perturbation.fidelity;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The offline {@link SemanticScorer}: BERTScore's greedy matching (Zhang et al., 2020) with a
 * lexical word similarity in place of contextual embeddings.
 *
 * <ol>
 *   <li>Words: the text lower-cased (root locale), split on every character that is not a letter or a
 *       digit; empty pieces dropped.
 *   <li>Word similarity: the cosine of the two words' sets of character trigrams, each word padded
 *       with {@code ^} and {@code $} ({@code "cat"} → {@code ^ca, cat, at$}):
 *       {@code |A ∩ B| / sqrt(|A| |B|)}; 1 for equal words. {@code "cat"} and {@code "cats"} share
 *       {@code ^ca} and {@code cat} of 3 and 4 trigrams: 2 / √12 = 0.577.
 *   <li>Precision: the mean over the candidate's words of the best similarity to any reference word;
 *       recall: the same the other way; score: their harmonic mean (F1). 0 when either text has no word.
 * </ol>
 *
 * <p>How it differs from BERTScore: it sees spelling, not meaning (a synonym with no trigram in common
 * scores 0, where a contextual model scores it high), it has no context (a word scores the same
 * wherever it stands), no IDF weighting and no baseline rescaling. Without rescaling BERTScore's F1
 * for unrelated sentences sits around 0.8 (roberta-large), so its 0.75 threshold means "nearly
 * unrelated"; here unrelated texts score near 0 and paraphrases lower than BERTScore would, so a 0.75
 * threshold is stricter with this scorer. Use it to catch answers that lost the reference's words
 * (wrong documents retrieved, truncated or off-topic answers); plug in a model for meaning.
 */
final class GreedyTrigramF1 implements SemanticScorer {

  static final GreedyTrigramF1 INSTANCE = new GreedyTrigramF1();

  private GreedyTrigramF1() {}

  @Override
  public double score(String candidate, String reference) {
    List<Set<String>> c = words(candidate);
    List<Set<String>> r = words(reference);
    if (c.isEmpty() || r.isEmpty()) {
      return 0;
    }
    double precision = greedy(c, r);
    double recall = greedy(r, c);
    return precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall);
  }

  private static double greedy(List<Set<String>> from, List<Set<String>> to) {
    double sum = 0;
    for (Set<String> a : from) {
      double best = 0;
      for (Set<String> b : to) {
        best = Math.max(best, cosine(a, b));
      }
      sum += best;
    }
    return sum / from.size();
  }

  static double cosine(Set<String> a, Set<String> b) {
    int shared = 0;
    for (String t : a) {
      if (b.contains(t)) {
        shared++;
      }
    }
    return shared / Math.sqrt((double) a.size() * b.size());
  }

  /** Each word of the text as its set of padded character trigrams. */
  static List<Set<String>> words(String text) {
    List<Set<String>> out = new ArrayList<>();
    for (String w : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{Nd}]+")) {
      if (w.isEmpty()) {
        continue;
      }
      String padded = "^" + w + "$";
      Set<String> grams = new HashSet<>();
      int[] cps = padded.codePoints().toArray();
      for (int i = 0; i + 3 <= cps.length; i++) {
        grams.add(new String(cps, i, 3));
      }
      out.add(grams);
    }
    return out;
  }

  @Override
  public String name() {
    return "greedy trigram F1";
  }

  @Override
  public String toString() {
    return "SemanticScorer[greedy trigram F1 (BERTScore-style greedy matching on character-trigram words)]";
  }
}
