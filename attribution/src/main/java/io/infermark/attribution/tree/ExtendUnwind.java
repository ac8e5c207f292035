package io.infermark.attribution.tree;

/**
 * Algorithm 2 of Lundberg et al. (2018), as in shap's {@code tree_shap_recursive}: walks each tree
 * once, keeping along the path the proportions of all subsets of the path's features that flow
 * down it ({@code EXTEND}); at a leaf, {@code UNWIND} removes one feature at a time to weigh the
 * leaf's value by that feature's Shapley weight. A feature split on twice is unwound and re-extended
 * so each feature appears once on the path.
 */
final class ExtendUnwind {
  private final TreeEnsemble t;
  // One segment of path elements per recursion level; segments never overlap (see recurse).
  private final int[] pathFeature;
  private final double[] pathZero;
  private final double[] pathOne;
  private final double[] pathWeight;
  private double[] x;
  private double[] phi;
  private int offset;

  ExtendUnwind(TreeEnsemble model) {
    this.t = model;
    int d = model.maxDepth() + 2;
    int size = (d + 1) * (d + 2) / 2 + d + 1;
    this.pathFeature = new int[size];
    this.pathZero = new double[size];
    this.pathOne = new double[size];
    this.pathWeight = new double[size];
  }

  /** Adds tree {@code tree}'s SHAP values for {@code row} to {@code out[offset + feature]}. */
  void explainTree(int tree, double[] row, double[] out, int offset) {
    this.x = row;
    this.phi = out;
    this.offset = offset;
    recurse(t.root(tree), 0, -1, 1, 1, -1);
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
        phi[offset + pathFeature[at + i]] += w * (pathOne[at + i] - pathZero[at + i]) * v;
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
