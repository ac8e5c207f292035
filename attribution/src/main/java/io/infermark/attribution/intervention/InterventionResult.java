package io.infermark.attribution.intervention;

import io.infermark.attribution.shapley.CoalitionGame;
import io.infermark.attribution.shapley.Shapley;
import io.infermark.attribution.shapley.ShapleyValues;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * What an {@link InterventionExperiment} measured and what it means: every block's statistic, each
 * cell's mean, the change from all-A to all-B with a confidence interval and a signed-rank test, and
 * that change attributed across the factors by exact Shapley values over the 2^k cells.
 */
public final class InterventionResult {

  private final List<String> factors;
  private final String statistic;
  private final int repetitions;
  private final List<BlockResult> blocks;
  private final double[][] cellByRepetition;
  private final double[] cellMeans;
  private final ChangeEstimate change;
  private final ShapleyValues shapley;
  private final List<ChangeEstimate> attributions;
  private final Map<String, Double> effects;

  InterventionResult(List<String> factors, String statistic, int repetitions, List<BlockResult> blocks,
      double confidence, int resamples, long seed, IntervalMethod interval) {
    this.factors = List.copyOf(factors);
    this.statistic = statistic;
    this.repetitions = repetitions;
    this.blocks = List.copyOf(blocks);
    int k = factors.size();
    int cells = 1 << k;
    int full = cells - 1;
    // Each repetition holds every cell twice; its value there is the mean of the two.
    cellByRepetition = new double[repetitions][cells];
    int[][] counts = new int[repetitions][cells];
    for (BlockResult b : blocks) {
      cellByRepetition[b.repetition()][b.cell().mask()] += b.value();
      counts[b.repetition()][b.cell().mask()]++;
    }
    cellMeans = new double[cells];
    for (int r = 0; r < repetitions; r++) {
      for (int c = 0; c < cells; c++) {
        if (counts[r][c] == 0) {
          throw new IllegalArgumentException("repetition " + r + " has no block of cell " + Cell.of(factors, c));
        }
        cellByRepetition[r][c] /= counts[r][c];
        cellMeans[c] += cellByRepetition[r][c] / repetitions;
      }
    }
    double[] differences = new double[repetitions];
    double[][] phiByRepetition = new double[k][repetitions];
    for (int r = 0; r < repetitions; r++) {
      double[] v = cellByRepetition[r];
      differences[r] = v[full] - v[0];
      ShapleyValues phi = Shapley.exact(CoalitionGame.of(factors, s -> v[(int) s]));
      for (int i = 0; i < k; i++) {
        phiByRepetition[i][r] = phi.value(i);
      }
    }
    // One seed for all: every estimate is read off the same resamples of repetitions.
    this.change = ChangeEstimate.of(differences, confidence, resamples, seed, interval);
    this.shapley = Shapley.exact(CoalitionGame.of(factors, s -> cellMeans[(int) s]));
    List<ChangeEstimate> perFactor = new ArrayList<>(k);
    for (int i = 0; i < k; i++) {
      perFactor.add(ChangeEstimate.of(phiByRepetition[i], confidence, resamples, seed, interval));
    }
    this.attributions = List.copyOf(perFactor);
    this.effects = effects(factors, cellMeans);
  }

  /**
   * Yates' effects: for each non-empty set T of factors, {@code 2^−(k−1) Σ_cells Π_{i∈T} s_i · mean},
   * with {@code s_i = +1} at B and −1 at A. Single factors are main effects (mean at B − mean at A).
   */
  private static Map<String, Double> effects(List<String> factors, double[] means) {
    int k = factors.size();
    int cells = 1 << k;
    List<Integer> subsets = new ArrayList<>();
    for (int t = 1; t < cells; t++) {
      subsets.add(t);
    }
    subsets.sort((a, b) -> Integer.bitCount(a) != Integer.bitCount(b)
        ? Integer.compare(Integer.bitCount(a), Integer.bitCount(b)) : Integer.compare(a, b));
    Map<String, Double> out = new LinkedHashMap<>();
    for (int t : subsets) {
      double sum = 0;
      for (int c = 0; c < cells; c++) {
        sum += (Integer.bitCount(t & ~c) % 2 == 0 ? 1 : -1) * means[c];
      }
      StringJoiner name = new StringJoiner(":");
      for (int i = 0; i < k; i++) {
        if ((t & (1 << i)) != 0) {
          name.add(factors.get(i));
        }
      }
      out.put(name.toString(), sum / (cells / 2));
    }
    return Collections.unmodifiableMap(out);
  }

  /** The factor names, in order. */
  public List<String> factors() {
    return factors;
  }

  /** What each block measured, e.g. {@code p99 e2e_ms}. */
  public String statistic() {
    return statistic;
  }

  /** The number of repetitions. */
  public int repetitions() {
    return repetitions;
  }

  /** Every block, in run order. */
  public List<BlockResult> blocks() {
    return blocks;
  }

  /** The mean statistic of the cell whose factors at B are the set bits of {@code mask}, over all its blocks. */
  public double cellMean(int mask) {
    if (mask < 0 || mask >= cellMeans.length) {
      throw new IllegalArgumentException("cell mask must be in [0, " + (cellMeans.length - 1) + "], was " + mask);
    }
    return cellMeans[mask];
  }

  /** Every cell's mean, indexed by {@link Cell#mask()}; a copy. */
  public double[] cellMeans() {
    return cellMeans.clone();
  }

  /** The cell's mean within one repetition (the mean of its two blocks there). */
  public double cellMean(int mask, int repetition) {
    cellMean(mask);
    if (repetition < 0 || repetition >= repetitions) {
      throw new IllegalArgumentException("repetition must be in [0, " + (repetitions - 1) + "], was " + repetition);
    }
    return cellByRepetition[repetition][mask];
  }

  /** The change from every factor at A to every factor at B: estimate, interval and signed-rank test. */
  public ChangeEstimate change() {
    return change;
  }

  /**
   * The change all-B − all-A split across the factors: exact Shapley values of the game whose value
   * for a set of factors is the mean of the cell with those factors at B and the others at A. They
   * add up to the change ({@link ShapleyValues#efficiencyGap()} ≈ 0); with one factor its value is
   * the change.
   */
  public ShapleyValues shapley() {
    return shapley;
  }

  /**
   * Each factor's Shapley value with a bootstrap interval and signed-rank test over repetitions (the
   * Shapley value is linear in the cell values, so the mean of the per-repetition values is
   * {@link #shapley()}'s); in factor order.
   */
  public List<ChangeEstimate> attributions() {
    return attributions;
  }

  /**
   * The named factor's attribution; see {@link #attributions()}.
   *
   * @throws IllegalArgumentException if there is no such factor
   */
  public ChangeEstimate attribution(String factor) {
    int i = factors.indexOf(factor);
    if (i < 0) {
      throw new IllegalArgumentException("no factor named '" + factor + "'; factors are " + factors);
    }
    return attributions.get(i);
  }

  /**
   * Main effects and interactions of the 2^k design (Yates): for a single factor, the mean over the
   * cells with it at B minus the mean over those with it at A; for a set of factors, the same contrast
   * with the product of their ±1 codes. Keys are factor names joined by {@code :}, single factors
   * first; unmodifiable.
   */
  public Map<String, Double> effects() {
    return effects;
  }

  /** A Markdown table: the change and each factor's attribution with their intervals and p-values. */
  public String toMarkdown() {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"", statistic + " change", "CI low", "CI high", "signed-rank p"});
    rows.add(row("all A -> all B", change));
    for (int i = 0; i < factors.size(); i++) {
      rows.add(row("  " + factors.get(i) + " (Shapley)", attributions.get(i)));
    }
    int[] width = new int[5];
    for (String[] r : rows) {
      for (int c = 0; c < 5; c++) {
        width[c] = Math.max(width[c], Math.max(3, r[c].length()));
      }
    }
    StringBuilder out = new StringBuilder();
    for (int r = 0; r < rows.size(); r++) {
      out.append('|');
      for (int c = 0; c < 5; c++) {
        String cell = rows.get(r)[c];
        String pad = " ".repeat(width[c] - cell.length());
        out.append(' ').append(c == 0 ? cell + pad : pad + cell).append(" |");
      }
      out.append('\n');
      if (r == 0) {
        out.append('|');
        for (int c = 0; c < 5; c++) {
          out.append(c == 0 ? "-".repeat(width[c] + 2) : "-".repeat(width[c] + 1) + ":").append('|');
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  private static String[] row(String label, ChangeEstimate e) {
    return new String[] {label, String.format(Locale.ROOT, "%+.3f", e.estimate()),
        String.format(Locale.ROOT, "%.3f", e.lower()), String.format(Locale.ROOT, "%.3f", e.upper()),
        String.format(Locale.ROOT, "%.4g", e.signedRankPValue())};
  }

  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", "InterventionResult[", "]");
    j.add(statistic + " " + factors + " " + repetitions + " repetitions x " + (2 * cellMeans.length) + " blocks");
    j.add(String.format(Locale.ROOT, "all-A %.4g -> all-B %.4g", cellMeans[0], cellMeans[cellMeans.length - 1]));
    j.add(String.format(Locale.ROOT, "change %+.4g [%.4g, %.4g] p=%.3g", change.estimate(), change.lower(),
        change.upper(), change.signedRankPValue()));
    for (int i = 0; i < factors.size(); i++) {
      j.add(String.format(Locale.ROOT, "%s %+.4g", factors.get(i), shapley.value(i)));
    }
    return j.toString();
  }
}
