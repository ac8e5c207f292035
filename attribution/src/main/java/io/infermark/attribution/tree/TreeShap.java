package io.infermark.attribution.tree;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * Exact SHAP values of a {@link TreeEnsemble}, computed tree by tree without enumerating coalitions.
 * Two games, two explainers:
 *
 * <ul>
 *   <li>{@link #pathDependent(TreeEnsemble)} — Lundberg, Erion and Lee (2018), "Consistent
 *       individualized feature attribution for tree ensembles", Algorithm 2. The value of a
 *       coalition S is the tree's output with the features in S taken from the row and the others
 *       averaged out along the tree, each branch weighted by {@code cover(child) / cover(parent)}.
 *       Needs no data besides the model; the base value is {@link TreeEnsemble#expectedValue()}.
 *       Algorithm 2 costs O(T·L·D²) per row for T trees of L leaves and depth D; for trees up to
 *       depth ~8 the explainer instead precomputes each leaf's Shapley values for every pattern of
 *       followed/not-followed splits and needs O(T·L·D) per row (a leaf's game depends on the row only
 *       through which of its path's splits the row follows), with
 *       {@link #pathDependentAlgorithm2(TreeEnsemble)} as the reference. This is the game xgboost's
 *       {@code predictContrib} and shap's {@code TreeExplainer(feature_perturbation="tree_path_dependent")}
 *       explain.
 *   <li>{@link #interventional(TreeEnsemble, double[][])} — the value of S is the mean over a
 *       background dataset of the model's output with the features in S taken from the row and the
 *       others from the background row: {@code v(S) = mean_z f(x_S, z_S̄)}. Exact Shapley values of
 *       that game, per (row, background row) pair by one walk of each tree that branches only where
 *       the two rows part (Lundberg et al. 2020, "From local explanations to global understanding
 *       with explainable AI for trees", interventional Tree SHAP); the base value is the background's
 *       mean prediction. Cost O(T·L·D) per pair, so per row it grows with the background's size.
 * </ul>
 *
 * <p>Both satisfy efficiency: {@code baseValue + Σ φ = prediction} for every row, up to rounding,
 * and the returned {@link TreeShapValues} report the largest gap. Missing values (NaN) follow each
 * split's default direction, in the row and in the background alike. Explainers are immutable and
 * thread-safe.
 *
 * <pre>{@code
 * TreeShapValues shap = TreeShap.pathDependent(model).explain(rows);
 * double[] phi = shap.row(0);                  // model units (ms for a latency model)
 * List<String> top = shap.ranking();           // by mean |φ|
 * }</pre>
 */
public final class TreeShap {

  /** The fewest rows a thread is given by {@link #withThreads(int)}. */
  public static final int MIN_ROWS_PER_THREAD = 64;

  /** The most background rows {@link #interventional(TreeEnsemble, double[][])} accepts. */
  public static final int MAX_BACKGROUND = 100_000;

  private final TreeEnsemble model;
  private final double[][] background;
  private final double backgroundMean;
  private final LeafGameTables tables;
  private final int threads;

  private TreeShap(TreeEnsemble model, double[][] background, double backgroundMean, LeafGameTables tables,
      int threads) {
    this.model = model;
    this.background = background;
    this.backgroundMean = backgroundMean;
    this.tables = tables;
    this.threads = threads;
  }

  /**
   * A path-dependent explainer of {@code model}. Trees up to depth 8 or so are explained from per-leaf
   * tables precomputed here (O(L·D) per tree and row; a tree is tabulated when Σ over its leaves of
   * 2^(distinct features on the leaf's path) is at most 65,536 and the ensemble's tables stay within
   * 32 MiB); deeper ones by Algorithm 2. Both give the same values up to rounding.
   */
  public static TreeShap pathDependent(TreeEnsemble model) {
    return new TreeShap(Objects.requireNonNull(model, "model"), null, Double.NaN, new LeafGameTables(model), 1);
  }

  /**
   * A path-dependent explainer that runs Algorithm 2 (EXTEND/UNWIND, O(T·L·D²) per row) on every tree:
   * the reference the table-driven {@link #pathDependent(TreeEnsemble)} is checked against, and the
   * choice when memory for tables is short.
   */
  public static TreeShap pathDependentAlgorithm2(TreeEnsemble model) {
    return new TreeShap(Objects.requireNonNull(model, "model"), null, Double.NaN, null, 1);
  }

  /**
   * An interventional explainer of {@code model} against {@code background} rows (copied).
   *
   * @throws IllegalArgumentException if the background is empty, larger than {@value #MAX_BACKGROUND}
   *     rows, or a row's length is not the model's feature count
   */
  public static TreeShap interventional(TreeEnsemble model, double[][] background) {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(background, "background");
    if (background.length == 0 || background.length > MAX_BACKGROUND) {
      throw new IllegalArgumentException("background must have 1 to " + MAX_BACKGROUND + " rows, had "
          + background.length);
    }
    double[][] copy = new double[background.length][];
    double sum = 0;
    for (int i = 0; i < background.length; i++) {
      model.checkRow(background[i], "background row " + i);
      copy[i] = background[i].clone();
      sum += model.predict(copy[i]);
    }
    return new TreeShap(model, copy, sum / copy.length, null, 1);
  }

  /**
   * This explainer splitting the rows of {@link #explain(double[][])} into up to {@code threads}
   * contiguous parts run on the common fork-join pool (and the calling thread); a part has at least
   * {@value #MIN_ROWS_PER_THREAD} rows. Every row is computed exactly as with one thread, so the
   * values are identical. Default 1: no other thread is used.
   *
   * @throws IllegalArgumentException if {@code threads < 1}
   */
  public TreeShap withThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, was " + threads);
    }
    return new TreeShap(model, background, backgroundMean, tables, threads);
  }

  /** The most threads {@link #explain(double[][])} uses. */
  public int threads() {
    return threads;
  }

  /** The model explained. */
  public TreeEnsemble model() {
    return model;
  }

  /** True for the interventional explainer. */
  public boolean isInterventional() {
    return background != null;
  }

  /** The value attributions start from: the expected value, or the background's mean prediction. */
  public double baseValue() {
    return background == null ? model.expectedValue() : backgroundMean;
  }

  /**
   * SHAP values of one row.
   *
   * @throws IllegalArgumentException if the row's length is not the model's feature count
   */
  public TreeShapValues explain(double[] row) {
    return explain(new double[][] {row});
  }

  /**
   * SHAP values of every row.
   *
   * @throws IllegalArgumentException if a row's length is not the model's feature count
   */
  public TreeShapValues explain(double[][] rows) {
    Objects.requireNonNull(rows, "rows");
    int m = model.featureCount();
    for (int r = 0; r < rows.length; r++) {
      model.checkRow(rows[r], "row " + r);
    }
    if ((long) rows.length * m > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(rows.length + " rows x " + m + " features do not fit one array; explain"
          + " fewer rows at a time");
    }
    double[] phi = new double[rows.length * m];
    double[] predictions = new double[rows.length];
    int parts = Math.min(threads, Math.max(1, rows.length / MIN_ROWS_PER_THREAD));
    if (parts <= 1) {
      explain(rows, 0, rows.length, phi, predictions);
    } else {
      IntStream.range(0, parts).parallel().forEach(part -> explain(rows, (int) ((long) rows.length * part / parts),
          (int) ((long) rows.length * (part + 1) / parts), phi, predictions));
    }
    return new TreeShapValues(model.featureNames(), phi, predictions, baseValue(),
        background == null ? "path-dependent" : "interventional");
  }

  /** Explains rows {@code from} to {@code to} (exclusive) into their places in {@code phi} and {@code predictions}. */
  private void explain(double[][] rows, int from, int to, double[] phi, double[] predictions) {
    int m = model.featureCount();
    if (background == null) {
      ExtendUnwind walker = new ExtendUnwind(model);
      LeafGameTables.Scratch scratch = tables == null ? null : tables.newScratch();
      // Trees outside, rows inside: one tree's tables stay in cache while every row uses them.
      for (int tree = 0; tree < model.treeCount(); tree++) {
        if (tables != null && tables.isTabulated(tree)) {
          for (int r = from; r < to; r += LeafGameTables.BLOCK) {
            tables.explainTree(tree, rows, r, Math.min(to, r + LeafGameTables.BLOCK), phi, m, scratch);
          }
        } else {
          for (int r = from; r < to; r++) {
            walker.explainTree(tree, rows[r], phi, r * m);
          }
        }
      }
    } else {
      InterventionalWalk walker = new InterventionalWalk(model);
      double[] out = new double[m];
      for (int r = from; r < to; r++) {
        Arrays.fill(out, 0);
        for (double[] z : background) {
          walker.explain(rows[r], z, out);
        }
        for (int f = 0; f < m; f++) {
          phi[r * m + f] = out[f] / background.length;
        }
      }
    }
    for (int r = from; r < to; r++) {
      predictions[r] = model.predict(rows[r]);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "TreeShap[%s, %d trees, %d features%s%s]",
        background == null ? "path-dependent" : "interventional", model.treeCount(), model.featureCount(),
        background == null ? "" : ", " + background.length + " background rows",
        threads == 1 ? "" : ", " + threads + " threads");
  }
}
