package io.infermark.attribution.tree;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * An immutable ensemble of decision trees whose outputs add up: {@code predict(x) = baseScore +
 * Σ_trees leaf(x)} (gradient-boosted trees in margin space, or a random forest's trees pre-divided by
 * their count). Nodes of all trees live in flat primitive arrays, so predicting and explaining a row
 * walk arrays rather than objects.
 *
 * <p>The split rule is xgboost's: a row goes left when {@code x[feature] < threshold}, right
 * otherwise, and to the split's default side when {@code x[feature]} is NaN (missing). With
 * {@link Builder#float32Features(boolean)}, as for models parsed from xgboost, feature values are
 * rounded to {@code float} before the comparison, because xgboost stores features and thresholds as
 * 32-bit floats: a {@code double} just below a threshold can round up to it and go right.
 *
 * <pre>{@code
 * TreeEnsemble model = TreeEnsemble.builder(List.of("input_tokens", "in_flight"))
 *     .baseScore(100)
 *     .addTree(TreeNode.split(0, 1024, TreeNode.leaf(-20, 70), TreeNode.leaf(50, 30)))
 *     .build();
 * double ms = model.predict(new double[] {2048, 3});     // 150
 * }</pre>
 *
 * <p>Build one by hand with {@link #builder(List)}, or from an xgboost model with
 * {@link XgboostJsonDump#parse(List, List, double)}; explain it with {@link TreeShap}.
 */
public final class TreeEnsemble {

  /** The deepest tree accepted: splits on the longest root-to-leaf path. */
  public static final int MAX_DEPTH = 64;

  static final int LEAF = -1;

  private final List<String> featureNames;
  private final double baseScore;
  private final boolean float32Features;
  private final int[] roots;
  private final int[] depths;
  // Per node, over all trees; a tree's nodes are contiguous and in pre-order from its root.
  final int[] feature;
  final double[] threshold;
  final int[] left;
  final int[] right;
  final boolean[] missingLeft;
  final double[] value;
  final double[] cover;

  private TreeEnsemble(Builder b) {
    this.featureNames = List.copyOf(b.featureNames);
    this.baseScore = b.baseScore;
    this.float32Features = b.float32Features;
    int nodes = 0;
    for (TreeNode t : b.trees) {
      nodes += count(t);
    }
    this.roots = new int[b.trees.size()];
    this.depths = new int[b.trees.size()];
    this.feature = new int[nodes];
    this.threshold = new double[nodes];
    this.left = new int[nodes];
    this.right = new int[nodes];
    this.missingLeft = new boolean[nodes];
    this.value = new double[nodes];
    this.cover = new double[nodes];
    int next = 0;
    for (int t = 0; t < roots.length; t++) {
      roots[t] = next;
      depths[t] = b.trees.get(t).depth();
      next = flatten(b.trees.get(t), next);
    }
  }

  private static int count(TreeNode n) {
    return n instanceof TreeNode.Split s ? 1 + count(s.left()) + count(s.right()) : 1;
  }

  /** Writes {@code n}'s subtree in pre-order from {@code at}; returns the next free index. */
  private int flatten(TreeNode n, int at) {
    cover[at] = n.cover();
    if (n instanceof TreeNode.Split s) {
      feature[at] = s.feature();
      threshold[at] = s.threshold();
      missingLeft[at] = s.missingGoesLeft();
      left[at] = at + 1;
      int next = flatten(s.left(), at + 1);
      right[at] = next;
      return flatten(s.right(), next);
    }
    TreeNode.Leaf leaf = (TreeNode.Leaf) n;
    feature[at] = LEAF;
    left[at] = LEAF;
    right[at] = LEAF;
    value[at] = leaf.value();
    return at + 1;
  }

  /**
   * A builder for an ensemble over the named features; a split's feature index refers to this list.
   *
   * @throws IllegalArgumentException if a name is blank or repeated
   */
  public static Builder builder(List<String> featureNames) {
    return new Builder(featureNames);
  }

  /** A builder for an ensemble over {@code features} features named {@code f0 … f(n−1)}, as xgboost names them. */
  public static Builder builder(int features) {
    if (features < 1) {
      throw new IllegalArgumentException("features must be >= 1, was " + features);
    }
    List<String> names = new ArrayList<>(features);
    for (int i = 0; i < features; i++) {
      names.add("f" + i);
    }
    return new Builder(names);
  }

  /** The features' names, in column order; a row has one value per name. */
  public List<String> featureNames() {
    return featureNames;
  }

  /** The number of features a row must have. */
  public int featureCount() {
    return featureNames.size();
  }

  /** The number of trees. */
  public int treeCount() {
    return roots.length;
  }

  /** The number of nodes, splits and leaves, over all trees. */
  public int nodeCount() {
    return feature.length;
  }

  /** The number of leaves over all trees. */
  public int leafCount() {
    int n = 0;
    for (int f : feature) {
      n += f == LEAF ? 1 : 0;
    }
    return n;
  }

  /** The depth of the deepest tree: splits on its longest root-to-leaf path. */
  public int maxDepth() {
    int d = 0;
    for (int x : depths) {
      d = Math.max(d, x);
    }
    return d;
  }

  /** The constant added to the trees' outputs. */
  public double baseScore() {
    return baseScore;
  }

  /** True when feature values are rounded to {@code float} before comparing them with thresholds. */
  public boolean float32Features() {
    return float32Features;
  }

  int root(int tree) {
    return roots[tree];
  }

  int depth(int tree) {
    return depths[tree];
  }

  /** True when {@code x} goes to the left child of split {@code node}. */
  boolean goesLeft(int node, double x) {
    if (Double.isNaN(x)) {
      return missingLeft[node];
    }
    return (float32Features ? (double) (float) x : x) < threshold[node];
  }

  /** The child of split {@code node} that {@code x} goes to. */
  int next(int node, double x) {
    return goesLeft(node, x) ? left[node] : right[node];
  }

  /**
   * The ensemble's output for one row: {@code baseScore + Σ_trees leaf(row)}.
   *
   * @param row one value per feature, NaN for missing
   * @throws IllegalArgumentException if the row's length is not {@link #featureCount()}
   */
  public double predict(double[] row) {
    checkRow(row, "row");
    double sum = baseScore;
    for (int root : roots) {
      sum += value[leaf(root, row)];
    }
    return sum;
  }

  /** The leaf of the tree rooted at {@code root} that {@code row} reaches. */
  int leaf(int root, double[] row) {
    int n = root;
    while (feature[n] != LEAF) {
      n = next(n, row[feature[n]]);
    }
    return n;
  }

  /**
   * The output expected when no feature is known: {@code baseScore} plus, for each tree, the mean of
   * its leaves weighted by the probability of reaching them, a branch being taken with probability
   * {@code cover(child) / cover(parent)}. This is path-dependent TreeSHAP's base value.
   */
  public double expectedValue() {
    double sum = baseScore;
    for (int root : roots) {
      sum += expectedValue(root);
    }
    return sum;
  }

  double expectedValue(int node) {
    if (feature[node] == LEAF) {
      return value[node];
    }
    return (cover[left[node]] * expectedValue(left[node]) + cover[right[node]] * expectedValue(right[node]))
        / cover[node];
  }

  void checkRow(double[] row, String what) {
    Objects.requireNonNull(row, what);
    if (row.length != featureNames.size()) {
      throw new IllegalArgumentException(what + " has " + row.length + " values but the model has "
          + featureNames.size() + " features " + featureNames);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "TreeEnsemble[%d trees, %d leaves, depth <= %d, %d features, base %.6g%s]",
        treeCount(), leafCount(), maxDepth(), featureCount(), baseScore, float32Features ? ", float32" : "");
  }

  /** Builds a {@link TreeEnsemble}. */
  public static final class Builder {
    private final List<String> featureNames;
    private final List<TreeNode> trees = new ArrayList<>();
    private double baseScore;
    private boolean float32Features;

    private Builder(List<String> featureNames) {
      List<String> names = List.copyOf(featureNames);
      if (names.isEmpty()) {
        throw new IllegalArgumentException("an ensemble needs at least one feature");
      }
      if (names.stream().anyMatch(String::isBlank)) {
        throw new IllegalArgumentException("feature names must not be blank: " + names);
      }
      if (names.stream().distinct().count() != names.size()) {
        throw new IllegalArgumentException("feature names must be distinct: " + names);
      }
      this.featureNames = names;
    }

    /**
     * The constant added to the trees' outputs (xgboost's base margin); default 0.
     *
     * @throws IllegalArgumentException if it is not finite
     */
    public Builder baseScore(double baseScore) {
      if (!Double.isFinite(baseScore)) {
        throw new IllegalArgumentException("baseScore must be finite, was " + baseScore);
      }
      this.baseScore = baseScore;
      return this;
    }

    /** Round feature values to {@code float} before comparing (xgboost's behaviour); default false. */
    public Builder float32Features(boolean float32) {
      this.float32Features = float32;
      return this;
    }

    /**
     * Adds a tree.
     *
     * @throws IllegalArgumentException if a split names a feature outside the ensemble's, or the tree is
     *     deeper than {@value TreeEnsemble#MAX_DEPTH}
     */
    public Builder addTree(TreeNode root) {
      Objects.requireNonNull(root, "root");
      check(root, 0);
      trees.add(root);
      return this;
    }

    private void check(TreeNode n, int depth) {
      if (depth > MAX_DEPTH) {
        throw new IllegalArgumentException("tree " + trees.size() + " is deeper than " + MAX_DEPTH);
      }
      if (n instanceof TreeNode.Split s) {
        if (s.feature() >= featureNames.size()) {
          throw new IllegalArgumentException("tree " + trees.size() + " splits on feature " + s.feature()
              + " but the ensemble has " + featureNames.size() + " features " + featureNames);
        }
        check(s.left(), depth + 1);
        check(s.right(), depth + 1);
      }
    }

    /**
     * The ensemble.
     *
     * @throws IllegalStateException if no tree was added
     */
    public TreeEnsemble build() {
      if (trees.isEmpty()) {
        throw new IllegalStateException("add at least one tree");
      }
      return new TreeEnsemble(this);
    }
  }
}
