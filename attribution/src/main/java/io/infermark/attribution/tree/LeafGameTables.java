package io.infermark.attribution.tree;

import java.util.Arrays;

/**
 * Path-dependent TreeSHAP from per-leaf tables: the same values as {@link ExtendUnwind}, in O(L·D)
 * per tree instead of O(L·D²), for trees shallow enough that the tables fit.
 *
 * <p>Why it works. Path-dependent TreeSHAP sums, over leaves, the Shapley values of each leaf's
 * game. Let leaf ℓ (value v) have k distinct features on its path; feature j's fraction is
 * {@code z_j}, the product of {@code cover(child)/cover(parent)} over its splits on the path, and its
 * indicator {@code o_j} is 1 when the row takes the path's branch at every one of them. The leaf's
 * game is {@code v(S) = v · Π_{j∈S} o_j · Π_{j∉S} z_j}. With H the set of features whose {@code o_j}
 * is 1, only coalitions inside H have value, and the Shapley values reduce to
 * <pre>
 *   φ_j = (1 − z_j) · Z(H) · T(H \ {j})   for j ∈ H,
 *   φ_j = −Z(H) · T(H)                   for j ∉ H,
 *   Z(H) = Π_{i∉H} z_i,   T(G) = v · Σ_{S⊆G} w(|S|) · Π_{i∈G\S} z_i,   w(s) = s!(k−s−1)!/k!.
 * </pre>
 * T depends on the leaf only, not on the row, so it is tabulated once for all 2^k subsets G (through
 * the elementary symmetric polynomials of the z's, O(k·2^k)); a row then needs H — one comparison
 * per split — and O(k) work per leaf. This is the idea of Fast TreeSHAP v2 (Yang, 2021), in a
 * different algebraic form.
 *
 * <p>A tree is tabulated when {@code Σ_leaves 2^k ≤ }{@value #TREE_BUDGET} entries and the ensemble's
 * tables stay within {@value #TOTAL_BUDGET} entries (8 bytes each); the others fall back to
 * {@link ExtendUnwind}.
 */
final class LeafGameTables {

  /** The most table entries one tree may use (a full tree of depth 8). */
  static final int TREE_BUDGET = 1 << 16;
  /** The most table entries for the whole ensemble (32 MiB). */
  static final int TOTAL_BUDGET = 1 << 22;

  private final TreeEnsemble t;
  private final boolean[] tabulated;
  // Per node (all trees): how a row's set H of followed path features changes from the parent to this
  // node. The branch into the node splits on the feature in slot bit; newBit is that bit when the
  // feature first appears on the path there, else 0. A row that takes the branch keeps H and adds
  // newBit; one that does not drops bit.
  private final int[] parent;
  private final int[] bit;
  private final int[] newBit;
  private final int[] leftChild;
  // Per leaf: distinct features k, slots from slotStart, 2^k table entries from tableStart, and whether
  // the table holds U(G) = Z(G)·T(G) (every z > 0) or T(G) itself (some branch has zero cover).
  private final int[] treeLeafStart;
  private final int[] leafNode;
  private final int[] leafSlots;
  private final int[] leafSlotStart;
  private final int[] leafTableStart;
  private final boolean[] leafRatioForm;
  // Per slot: the feature, z, 1 − z and (1 − z)/z.
  private final int[] slotFeature;
  private final double[] slotZero;
  private final double[] slotOneMinusZero;
  private final double[] slotRatio;
  private final double[] table;
  private final int maxTreeNodes;
  private final boolean float32;
  private final int[] missingLeft;

  LeafGameTables(TreeEnsemble model) {
    this.t = model;
    int trees = model.treeCount();
    int nodes = model.nodeCount();
    this.float32 = model.float32Features();
    this.missingLeft = new int[nodes];
    for (int n = 0; n < nodes; n++) {
      missingLeft[n] = model.missingLeft[n] ? 1 : 0;
    }
    this.tabulated = new boolean[trees];
    this.parent = new int[nodes];
    this.bit = new int[nodes];
    this.newBit = new int[nodes];
    this.leftChild = new int[nodes];
    Builder b = new Builder(this);
    int maxNodes = 0;
    this.treeLeafStart = new int[trees + 1];
    for (int tree = 0; tree < trees; tree++) {
      maxNodes = Math.max(maxNodes, end(tree) - model.root(tree));
      treeLeafStart[tree] = b.leafSlots.size;
      tabulated[tree] = b.tryTree(model.root(tree));
    }
    treeLeafStart[trees] = b.leafSlots.size;
    this.maxTreeNodes = maxNodes;
    this.leafNode = b.leafNode.toArray();
    this.leafSlots = b.leafSlots.toArray();
    this.leafSlotStart = b.leafSlotStart.toArray();
    this.leafTableStart = b.leafTableStart.toArray();
    this.leafRatioForm = new boolean[leafSlots.length];
    this.slotFeature = b.slotFeature.toArray();
    this.slotZero = Arrays.copyOf(b.slotZero.data, b.slotZero.size);
    this.slotOneMinusZero = new double[slotZero.length];
    this.slotRatio = new double[slotZero.length];
    for (int i = 0; i < slotZero.length; i++) {
      slotOneMinusZero[i] = 1 - slotZero[i];
      slotRatio[i] = slotZero[i] > 0 ? (1 - slotZero[i]) / slotZero[i] : Double.NaN;
    }
    this.table = Arrays.copyOf(b.table.data, b.table.size);
    for (int leaf = 0; leaf < leafSlots.length; leaf++) {
      int k = leafSlots[leaf];
      int s = leafSlotStart[leaf];
      boolean positive = true;
      for (int j = 0; j < k; j++) {
        positive &= slotZero[s + j] > 0;
      }
      leafRatioForm[leaf] = positive;
      if (positive) {
        // U(G) = Z(G)·T(G), Z(G) = Π_{i∉G} z_i; then (1 − z_j)·Z(H)·T(H \ {j}) = (1 − z_j)/z_j · U(H \ {j}).
        int at = leafTableStart[leaf];
        for (int g = 0; g < 1 << k; g++) {
          double outside = 1;
          for (int j = 0; j < k; j++) {
            if ((g & (1 << j)) == 0) {
              outside *= slotZero[s + j];
            }
          }
          table[at + g] *= outside;
        }
      }
    }
  }

  private int end(int tree) {
    return tree + 1 < t.treeCount() ? t.root(tree + 1) : t.nodeCount();
  }

  /** True when tree {@code tree} is explained from tables. */
  boolean isTabulated(int tree) {
    return tabulated[tree];
  }

  /** Scratch space for {@link #explainTree}. */
  Scratch newScratch() {
    return new Scratch(maxTreeNodes);
  }

  /** Rows explained together: their leaf updates interleave, so they do not wait on one another. */
  static final int BLOCK = 8;

  /** Per-thread working memory: for each row of a block, each node's followed-feature set H. */
  static final class Scratch {
    final int nodes;
    final int[] followed;
    final int[] goesLeft;

    Scratch(int nodes) {
      this.nodes = nodes;
      this.followed = new int[BLOCK * nodes];
      this.goesLeft = new int[nodes];
    }
  }

  /**
   * Adds tabulated tree {@code tree}'s SHAP values for rows {@code from} to {@code to} (exclusive,
   * at most {@link #BLOCK}) to {@code phi[row · features + feature]}. First each row's H at every node,
   * in one pre-order pass; then leaf by leaf, every row's update. Whether a row follows a branch is a
   * coin flip to the CPU, so the hot loops select with masks and arithmetic instead of branches.
   */
  void explainTree(int tree, double[][] rows, int from, int to, double[] phi, int features, Scratch scratch) {
    int root = t.root(tree);
    int[] feature = t.feature;
    if (feature[root] == TreeEnsemble.LEAF) {
      return;
    }
    int end = end(tree);
    int[] left = scratch.goesLeft;
    int stride = scratch.nodes;
    for (int r = from; r < to; r++) {
      double[] x = rows[r];
      int[] h = scratch.followed;
      int base = (r - from) * stride;
      h[base] = 0;
      left[0] = goesLeft(root, x[feature[root]]);
      for (int n = root + 1; n < end; n++) {
        int i = n - root;
        int p = parent[n] - root;
        int keep = (left[p] ^ leftChild[n]) - 1; // -1 when the row takes this branch, else 0
        h[base + i] = (h[base + p] | (newBit[n] & keep)) & ~(bit[n] & ~keep);
        int f = feature[n];
        if (f != TreeEnsemble.LEAF) {
          left[i] = goesLeft(n, x[f]);
        }
      }
    }
    for (int leaf = treeLeafStart[tree], last = treeLeafStart[tree + 1]; leaf < last; leaf++) {
      int node = leafNode[leaf];
      for (int r = from; r < to; r++) {
        addLeaf(leaf, scratch.followed[(r - from) * stride + node], phi, r * features);
      }
    }
  }

  /** {@link TreeEnsemble#goesLeft} as 1 or 0, without a branch on NaN (a NaN is never {@code <}). */
  private int goesLeft(int node, double v) {
    double c = float32 ? (double) (float) v : v;
    return (c < t.threshold[node] ? 1 : 0) | (v != v ? missingLeft[node] : 0);
  }

  private void addLeaf(int leaf, int h, double[] phi, int offset) {
    int k = leafSlots[leaf];
    int s = leafSlotStart[leaf];
    int at = leafTableStart[leaf];
    if (leafRatioForm[leaf]) {
      double absent = table[at + h];
      for (int j = 0; j < k; j++) {
        double in = (h >>> j) & 1;
        double present = slotRatio[s + j] * table[at + (h ^ (1 << j))];
        phi[offset + slotFeature[s + j]] += in * present - (1 - in) * absent;
      }
      return;
    }
    double outside = 1;
    for (int j = 0; j < k; j++) {
      if ((h & (1 << j)) == 0) {
        outside *= slotZero[s + j];
      }
    }
    if (outside == 0) {
      return;
    }
    double absent = outside * table[at + h];
    for (int j = 0; j < k; j++) {
      int b = 1 << j;
      if ((h & b) != 0) {
        phi[offset + slotFeature[s + j]] += slotOneMinusZero[s + j] * outside * table[at + (h ^ b)];
      } else {
        phi[offset + slotFeature[s + j]] -= absent;
      }
    }
  }

  /** Collects per-node transitions, per-leaf slots and tables tree by tree, skipping trees over budget. */
  private static final class Builder {
    private final LeafGameTables out;
    private final TreeEnsemble t;
    private final IntList leafSlots = new IntList();
    private final IntList leafNode = new IntList();
    private final IntList leafSlotStart = new IntList();
    private final IntList leafTableStart = new IntList();
    private final IntList slotFeature = new IntList();
    private final DoubleList slotZero = new DoubleList();
    private final DoubleList table = new DoubleList();
    private final int[] slotOf;
    // Per slot on the current path: its feature and z.
    private final int[] stackFeature;
    private final double[] stackZero;
    private long treeEntries;
    private int root;

    Builder(LeafGameTables out) {
      this.out = out;
      this.t = out.t;
      this.slotOf = new int[t.featureCount()];
      Arrays.fill(slotOf, -1);
      int d = t.maxDepth() + 1;
      this.stackFeature = new int[d];
      this.stackZero = new double[d];
    }

    /** Tabulates the tree at {@code root} if it fits the budgets; false (and nothing added) if not. */
    boolean tryTree(int root) {
      treeEntries = 0;
      if (!entriesFit(root, 0) || table.size + treeEntries > TOTAL_BUDGET) {
        return false;
      }
      out.parent[root] = -1;
      this.root = root;
      visit(root, 0);
      return true;
    }

    /** Counts Σ 2^k over the leaves below {@code node}; false as soon as it passes the tree budget. */
    private boolean entriesFit(int node, int slots) {
      int f = t.feature[node];
      if (f == TreeEnsemble.LEAF) {
        treeEntries += 1L << slots;
        return treeEntries <= TREE_BUDGET;
      }
      boolean seen = slotOf[f] >= 0;
      if (!seen) {
        slotOf[f] = slots;
      }
      int more = seen ? slots : slots + 1;
      boolean fits = more <= 30 && entriesFit(t.left[node], more) && entriesFit(t.right[node], more);
      if (!seen) {
        slotOf[f] = -1;
      }
      return fits;
    }

    private void visit(int node, int slots) {
      int f = t.feature[node];
      if (f == TreeEnsemble.LEAF) {
        leafNode.add(node - root);
        leafSlots.add(slots);
        leafSlotStart.add(slotFeature.size);
        leafTableStart.add(table.size);
        for (int j = 0; j < slots; j++) {
          slotFeature.add(stackFeature[j]);
          slotZero.add(stackZero[j]);
        }
        table.addAll(tabulate(t.value[node], Arrays.copyOf(stackZero, slots)));
        return;
      }
      boolean seen = slotOf[f] >= 0;
      int slot = seen ? slotOf[f] : slots;
      if (!seen) {
        slotOf[f] = slot;
        stackFeature[slot] = f;
        stackZero[slot] = 1;
      }
      int more = seen ? slots : slots + 1;
      double zero = stackZero[slot];
      for (int child : new int[] {t.left[node], t.right[node]}) {
        out.parent[child] = node;
        out.bit[child] = 1 << slot;
        out.newBit[child] = seen ? 0 : 1 << slot;
        out.leftChild[child] = child == t.left[node] ? 1 : 0;
        stackZero[slot] = zero * t.cover[child] / t.cover[node];
        visit(child, more);
      }
      stackZero[slot] = zero;
      if (!seen) {
        slotOf[f] = -1;
      }
    }
  }

  /**
   * {@code T(G) = v · Σ_{m=0}^{|G|} w(|G| − m) · e_m(z_G)} for every subset G of the k slots, where
   * {@code e_m} is the m-th elementary symmetric polynomial of the z's in G, built up one slot at a time.
   */
  static double[] tabulate(double v, double[] z) {
    int k = z.length;
    int size = 1 << k;
    double[] w = new double[k + 1];
    for (int s = 0; s < k; s++) {
      // s!(k−s−1)!/k! = 1 / (k · C(k−1, s))
      double c = 1;
      for (int i = 1; i <= s; i++) {
        c = c * (k - 1 - s + i) / i;
      }
      w[s] = 1 / (k * c);
    }
    double[] e = new double[size * (k + 1)];
    e[0] = 1;
    double[] out = new double[size];
    out[0] = v * w[0];
    for (int g = 1; g < size; g++) {
      int b = Integer.numberOfTrailingZeros(g);
      int p = (g & (g - 1)) * (k + 1);
      int at = g * (k + 1);
      int count = Integer.bitCount(g);
      e[at] = 1;
      for (int m = 1; m <= count; m++) {
        e[at + m] = e[p + m] + z[b] * e[p + m - 1];
      }
      double sum = 0;
      for (int m = 0; m <= count; m++) {
        sum += w[count - m] * e[at + m];
      }
      out[g] = v * sum;
    }
    return out;
  }

  private static final class IntList {
    int[] data = new int[64];
    int size;

    void add(int v) {
      if (size == data.length) {
        data = Arrays.copyOf(data, size * 2);
      }
      data[size++] = v;
    }

    int[] toArray() {
      return Arrays.copyOf(data, size);
    }
  }

  private static final class DoubleList {
    double[] data = new double[64];
    int size;

    void add(double v) {
      if (size == data.length) {
        data = Arrays.copyOf(data, size * 2);
      }
      data[size++] = v;
    }

    void addAll(double[] v) {
      if (size + v.length > data.length) {
        data = Arrays.copyOf(data, Math.max(size + v.length, data.length * 2));
      }
      System.arraycopy(v, 0, data, size, v.length);
      size += v.length;
    }
  }
}
