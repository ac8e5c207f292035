package io.infermark.attribution.tree;

import java.util.Locale;
import java.util.Objects;

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
 *       Cost O(T·L·D²) per row for T trees of L leaves and depth D. This is what xgboost's
 *       {@code predictContrib} and shap's {@code TreeExplainer(feature_perturbation="tree_path_dependent")}
 *       compute.
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

  /** The most background rows {@link #interventional(TreeEnsemble, double[][])} accepts. */
  public static final int MAX_BACKGROUND = 100_000;

  private final TreeEnsemble model;
  private final double[][] background;
  private final double backgroundMean;

  private TreeShap(TreeEnsemble model, double[][] background, double backgroundMean) {
    this.model = model;
    this.background = background;
    this.backgroundMean = backgroundMean;
  }

  /** A path-dependent explainer of {@code model} (Algorithm 2 of Lundberg et al. 2018). */
  public static TreeShap pathDependent(TreeEnsemble model) {
    return new TreeShap(Objects.requireNonNull(model, "model"), null, Double.NaN);
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
    return new TreeShap(model, copy, sum / copy.length);
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
    double[] phi = new double[rows.length * m];
    double[] predictions = new double[rows.length];
    double[] out = new double[m];
    if (background == null) {
      PathDependent walker = new PathDependent(model);
      for (int r = 0; r < rows.length; r++) {
        java.util.Arrays.fill(out, 0);
        walker.explain(rows[r], out);
        System.arraycopy(out, 0, phi, r * m, m);
        predictions[r] = model.predict(rows[r]);
      }
      return new TreeShapValues(model.featureNames(), phi, predictions, model.expectedValue(), "path-dependent");
    }
    Interventional walker = new Interventional(model);
    for (int r = 0; r < rows.length; r++) {
      java.util.Arrays.fill(out, 0);
      for (double[] z : background) {
        walker.explain(rows[r], z, out);
      }
      for (int f = 0; f < m; f++) {
        phi[r * m + f] = out[f] / background.length;
      }
      predictions[r] = model.predict(rows[r]);
    }
    return new TreeShapValues(model.featureNames(), phi, predictions, backgroundMean, "interventional");
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "TreeShap[%s, %d trees, %d features%s]",
        background == null ? "path-dependent" : "interventional", model.treeCount(), model.featureCount(),
        background == null ? "" : ", " + background.length + " background rows");
  }

  /**
   * Algorithm 2 of Lundberg et al. (2018), as in shap's {@code tree_shap_recursive}: walks each tree
   * once, keeping along the path the proportions of all subsets of the path's features that flow
   * down it ({@code EXTEND}); at a leaf, {@code UNWIND} removes one feature at a time to weigh the
   * leaf's value by that feature's Shapley weight. A feature split on twice is unwound and re-extended
   * so each feature appears once on the path.
   */
  static final class PathDependent {
    private final TreeEnsemble t;
    // One segment of path elements per recursion level; segments never overlap (see recurse).
    private final int[] pathFeature;
    private final double[] pathZero;
    private final double[] pathOne;
    private final double[] pathWeight;
    private double[] x;
    private double[] phi;

    PathDependent(TreeEnsemble model) {
      this.t = model;
      int d = model.maxDepth() + 2;
      int size = (d + 1) * (d + 2) / 2 + d + 1;
      this.pathFeature = new int[size];
      this.pathZero = new double[size];
      this.pathOne = new double[size];
      this.pathWeight = new double[size];
    }

    void explain(double[] row, double[] out) {
      this.x = row;
      this.phi = out;
      for (int tree = 0; tree < t.treeCount(); tree++) {
        recurse(t.root(tree), 0, -1, 1, 1, -1);
      }
      this.x = null;
      this.phi = null;
    }

    /**
     * Visits {@code node} with {@code depth} features on the parent's path (which starts at
     * {@code parentAt}), extending it by the split that led here: feature {@code feature}, a fraction
     * {@code zero} of the data flowing here when the feature is unknown and {@code one} (1 or 0) when
     * it is known.
     */
    private void recurse(int node, int depth, int parentAt, double zero, double one, int feature) {
      int at = parentAt + depth + 1;
      if (depth > 0) {
        System.arraycopy(pathFeature, parentAt, pathFeature, at, depth);
        System.arraycopy(pathZero, parentAt, pathZero, at, depth);
        System.arraycopy(pathOne, parentAt, pathOne, at, depth);
        System.arraycopy(pathWeight, parentAt, pathWeight, at, depth);
      }
      extend(at, depth, zero, one, feature);
      int split = t.feature[node];
      if (split == TreeEnsemble.LEAF) {
        double v = t.value[node];
        for (int i = 1; i <= depth; i++) {
          double w = unwoundSum(at, depth, i);
          phi[pathFeature[at + i]] += w * (pathOne[at + i] - pathZero[at + i]) * v;
        }
        return;
      }
      int hot = t.next(node, x[split]);
      int cold = hot == t.left[node] ? t.right[node] : t.left[node];
      double cover = t.cover[node];
      double incomingZero = 1;
      double incomingOne = 1;
      int d = depth;
      int k = 0;
      while (k <= d && pathFeature[at + k] != split) {
        k++;
      }
      if (k <= d) {
        incomingZero = pathZero[at + k];
        incomingOne = pathOne[at + k];
        unwind(at, d, k);
        d--;
      }
      double hotZero = t.cover[hot] / cover * incomingZero;
      if (hotZero != 0 || incomingOne != 0) {
        recurse(hot, d + 1, at, hotZero, incomingOne, split);
      }
      double coldZero = t.cover[cold] / cover * incomingZero;
      if (coldZero != 0) {
        recurse(cold, d + 1, at, coldZero, 0, split);
      }
    }

    private void extend(int at, int depth, double zero, double one, int feature) {
      pathFeature[at + depth] = feature;
      pathZero[at + depth] = zero;
      pathOne[at + depth] = one;
      pathWeight[at + depth] = depth == 0 ? 1 : 0;
      double scale = 1.0 / (depth + 1);
      for (int i = depth - 1; i >= 0; i--) {
        pathWeight[at + i + 1] += one * pathWeight[at + i] * (i + 1) * scale;
        pathWeight[at + i] = zero * pathWeight[at + i] * (depth - i) * scale;
      }
    }

    private void unwind(int at, int depth, int index) {
      double one = pathOne[at + index];
      double zero = pathZero[at + index];
      double next = pathWeight[at + depth];
      for (int i = depth - 1; i >= 0; i--) {
        if (one != 0) {
          double tmp = pathWeight[at + i];
          pathWeight[at + i] = next * (depth + 1) / ((i + 1) * one);
          next = tmp - pathWeight[at + i] * zero * (depth - i) / (depth + 1);
        } else {
          pathWeight[at + i] = pathWeight[at + i] * (depth + 1) / (zero * (depth - i));
        }
      }
      for (int i = index; i < depth; i++) {
        pathFeature[at + i] = pathFeature[at + i + 1];
        pathZero[at + i] = pathZero[at + i + 1];
        pathOne[at + i] = pathOne[at + i + 1];
      }
    }

    /** The total weight of the path with element {@code index} unwound, without changing the path. */
    private double unwoundSum(int at, int depth, int index) {
      double one = pathOne[at + index];
      double zero = pathZero[at + index];
      double next = pathWeight[at + depth];
      double total = 0;
      if (one != 0) {
        for (int i = depth - 1; i >= 0; i--) {
          double tmp = next / ((i + 1) * one);
          total += tmp;
          next = pathWeight[at + i] - tmp * zero * (depth - i);
        }
      } else {
        for (int i = depth - 1; i >= 0; i--) {
          total += pathWeight[at + i] / (zero * (depth - i));
        }
      }
      return total * (depth + 1);
    }
  }

  /**
   * Interventional Tree SHAP for one (row x, background row z) pair: where x and z take the same
   * branch the walk follows it; where they part on a feature not yet decided, it walks both ways,
   * once with the feature taken from x and once from z, and a feature already decided keeps its
   * source. A leaf reached with p features from x and n from z has value v only for coalitions that
   * hold all p and none of the n, a game whose Shapley values are {@code v·(p−1)!n!/(p+n)!} for each
   * of the p and {@code −v·p!(n−1)!/(p+n)!} for each of the n.
   */
  static final class Interventional {
    private static final byte UNDECIDED = 0;
    private static final byte FROM_X = 1;
    private static final byte FROM_Z = 2;

    private final TreeEnsemble t;
    private final byte[] source;
    private final int[] fromX;
    private final int[] fromZ;
    // weight[p][n]: (p−1)!·n!/(p+n)!, the Shapley weight of one of p "x" players in the leaf game.
    private final double[][] weight;
    private double[] x;
    private double[] z;
    private double[] phi;

    Interventional(TreeEnsemble model) {
      this.t = model;
      this.source = new byte[model.featureCount()];
      int d = model.maxDepth() + 1;
      this.fromX = new int[d];
      this.fromZ = new int[d];
      this.weight = new double[d + 1][d + 1];
      for (int p = 1; p <= d; p++) {
        for (int n = 0; p + n <= d; n++) {
          // (p−1)! n! / (p+n)! = 1 / ((p+n) · C(p+n−1, n))
          double c = 1;
          for (int k = 1; k <= n; k++) {
            c = c * (p - 1 + k) / k;
          }
          weight[p][n] = 1 / ((p + n) * c);
        }
      }
    }

    void explain(double[] row, double[] backgroundRow, double[] out) {
      this.x = row;
      this.z = backgroundRow;
      this.phi = out;
      for (int tree = 0; tree < t.treeCount(); tree++) {
        recurse(t.root(tree), 0, 0);
      }
      this.x = null;
      this.z = null;
      this.phi = null;
    }

    private void recurse(int node, int p, int n) {
      int split = t.feature[node];
      if (split == TreeEnsemble.LEAF) {
        double v = t.value[node];
        if (p > 0) {
          double w = v * weight[p][n];
          for (int i = 0; i < p; i++) {
            phi[fromX[i]] += w;
          }
        }
        if (n > 0) {
          double w = v * weight[n][p]; // p!(n−1)!/(p+n)! is the same formula with the roles swapped
          for (int i = 0; i < n; i++) {
            phi[fromZ[i]] -= w;
          }
        }
        return;
      }
      int xNext = t.next(node, x[split]);
      int zNext = t.next(node, z[split]);
      if (xNext == zNext) {
        recurse(xNext, p, n);
      } else if (source[split] == FROM_X) {
        recurse(xNext, p, n);
      } else if (source[split] == FROM_Z) {
        recurse(zNext, p, n);
      } else {
        source[split] = FROM_X;
        fromX[p] = split;
        recurse(xNext, p + 1, n);
        source[split] = FROM_Z;
        fromZ[n] = split;
        recurse(zNext, p, n + 1);
        source[split] = UNDECIDED;
      }
    }
  }
}
