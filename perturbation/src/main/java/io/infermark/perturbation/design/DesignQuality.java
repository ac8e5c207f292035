package io.infermark.perturbation.design;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * How well a design samples its space, as numbers:
 *
 * <ul>
 *   <li><b>pairwise coverage</b> — over all pairs of factors, the share of their level pairs
 *       ({@code n_a × n_b} per pair, summed) that at least one run shows; 1 for every strength-2
 *       array. With a single factor, the share of its levels shown.
 *   <li><b>worst pair coverage</b> — the same share for the least covered pair of factors.
 *   <li><b>minimum / mean distance</b> — Euclidean distances between runs, each level scaled to
 *       {@code level / (levels − 1)} in [0, 1] (a one-level factor adds 0); a small minimum means
 *       near-duplicate runs. {@code O(runs² × factors)}.
 *   <li><b>diversity</b> — the distinct-n-gram ratio of the variant texts (distinct word bigrams /
 *       all word bigrams over every text; Li et al. 2016's distinct-2), when texts were given.
 * </ul>
 *
 * @param name the design's name
 * @param runs the number of runs
 * @param pairwiseCoverage share of level pairs covered, in [0, 1]
 * @param worstPairCoverage coverage of the least covered factor pair, in [0, 1]
 * @param minDistance minimum distance between two runs (0 for one run)
 * @param meanDistance mean distance between runs (0 for one run)
 * @param diversity distinct-bigram ratio of the variant texts, if measured
 */
public record DesignQuality(String name, int runs, double pairwiseCoverage, double worstPairCoverage,
    double minDistance, double meanDistance, OptionalDouble diversity) {

  /** The n of the n-grams {@link #diversity} counts. */
  public static final int NGRAM = 2;

  /** Level-based numbers only (no texts, no diversity). */
  public static DesignQuality of(Design design) {
    return compute(design, OptionalDouble.empty());
  }

  /** All numbers, diversity from the variant texts of the design's runs. */
  public static DesignQuality of(Design design, List<String> texts) {
    if (texts.size() != design.runs()) {
      throw new IllegalArgumentException("need one text per run: " + design.runs() + " runs, " + texts.size()
          + " texts");
    }
    return compute(design, distinctNgramRatio(texts, NGRAM));
  }

  private static DesignQuality compute(Design design, OptionalDouble diversity) {
    int[] levels = design.levelCounts();
    int[][] rows = design.rows();
    int k = levels.length;
    long covered = 0;
    long total = 0;
    double worst = 1.0;
    if (k == 1) {
      boolean[] seen = new boolean[levels[0]];
      int count = 0;
      for (int[] r : rows) {
        if (!seen[r[0]]) {
          seen[r[0]] = true;
          count++;
        }
      }
      covered = count;
      total = levels[0];
      worst = count / (double) levels[0];
    }
    for (int a = 0; a < k; a++) {
      for (int b = a + 1; b < k; b++) {
        boolean[] seen = new boolean[levels[a] * levels[b]];
        int count = 0;
        for (int[] r : rows) {
          int cell = r[a] * levels[b] + r[b];
          if (!seen[cell]) {
            seen[cell] = true;
            count++;
          }
        }
        covered += count;
        total += seen.length;
        worst = Math.min(worst, count / (double) seen.length);
      }
    }
    double[][] x = new double[rows.length][k];
    for (int i = 0; i < rows.length; i++) {
      for (int j = 0; j < k; j++) {
        x[i][j] = levels[j] > 1 ? rows[i][j] / (double) (levels[j] - 1) : 0;
      }
    }
    double min = Double.POSITIVE_INFINITY;
    double sum = 0;
    long pairs = 0;
    for (int i = 0; i < rows.length; i++) {
      for (int l = i + 1; l < rows.length; l++) {
        double d2 = 0;
        for (int j = 0; j < k; j++) {
          double d = x[i][j] - x[l][j];
          d2 += d * d;
        }
        double d = Math.sqrt(d2);
        min = Math.min(min, d);
        sum += d;
        pairs++;
      }
    }
    return new DesignQuality(design.name(), design.runs(), covered / (double) total, worst,
        pairs == 0 ? 0 : min, pairs == 0 ? 0 : sum / pairs, diversity);
  }

  /**
   * Distinct word n-grams over all n-grams of the texts (words split at whitespace); empty when the
   * texts hold no n-gram.
   */
  public static OptionalDouble distinctNgramRatio(List<String> texts, int n) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be >= 1, was " + n);
    }
    Set<String> distinct = new HashSet<>();
    long total = 0;
    for (String t : texts) {
      String[] words = t.strip().split("\\s+");
      if (words.length == 1 && words[0].isEmpty()) {
        continue;
      }
      for (int i = 0; i + n <= words.length; i++) {
        distinct.add(String.join(" ", java.util.Arrays.copyOfRange(words, i, i + n)));
        total++;
      }
    }
    return total == 0 ? OptionalDouble.empty() : OptionalDouble.of(distinct.size() / (double) total);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "DesignQuality[%s: %d runs, coverage %.3f (worst pair %.3f), distance min %.3f"
        + " mean %.3f%s]", name, runs, pairwiseCoverage, worstPairCoverage, minDistance, meanDistance,
        diversity.isPresent() ? String.format(Locale.ROOT, ", diversity %.3f", diversity.getAsDouble()) : "");
  }
}
