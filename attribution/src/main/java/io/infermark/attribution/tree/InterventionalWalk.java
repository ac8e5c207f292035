package io.infermark.attribution.tree;

/**
 * Interventional Tree SHAP for one (row x, background row z) pair: where x and z take the same
 * branch the walk follows it; where they part on a feature not yet decided, it walks both ways,
 * once with the feature taken from x and once from z, and a feature already decided keeps its
 * source. A leaf reached with p features from x and n from z has value v only for coalitions that
 * hold all p and none of the n, a game whose Shapley values are {@code v·(p−1)!n!/(p+n)!} for each
 * of the p and {@code −v·p!(n−1)!/(p+n)!} for each of the n.
 */
final class InterventionalWalk {
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

  InterventionalWalk(TreeEnsemble model) {
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
