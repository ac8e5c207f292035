package io.infermark.attribution.tree;

import static io.infermark.attribution.tree.TreeNode.leaf;
import static io.infermark.attribution.tree.TreeNode.split;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.attribution.shapley.CoalitionGame;
import io.infermark.attribution.shapley.Shapley;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TreeShapTest {

  private static final List<String> XYZ = List.of("x", "y", "z");

  /**
   * Depth 3 over three features, x split twice on one path (so the path-dependent walk must unwind
   * and re-extend it), uneven covers and both missing directions.
   */
  static TreeNode handTree() {
    return split(0, 0.5, true, 100,
        split(1, 1.0, false, 60,
            split(0, 0.2, true, 25, leaf(3, 10), leaf(5, 15)),
            leaf(-2, 35)),
        split(2, 0.0, true, 40,
            leaf(7, 30),
            split(1, 2.0, false, 10, leaf(1, 4), leaf(11, 6))));
  }

  static TreeEnsemble handModel() {
    return TreeEnsemble.builder(XYZ).baseScore(0.25).addTree(handTree())
        .addTree(split(1, 1.5, true, 100, leaf(-1, 70), split(2, 1.0, false, 30, leaf(2, 20), leaf(4, 10))))
        .build();
  }

  static final double[][] ROWS = {
      {0.1, 0.5, 3}, {0.3, 0.5, -1}, {0.9, 3, -5}, {0.9, 3, 5}, {0.9, 0.5, 5}, {Double.NaN, 0.5, 1},
      {0.7, Double.NaN, 2}, {0.1, 1.2, Double.NaN}, {Double.NaN, Double.NaN, Double.NaN}};

  @Test
  void handTreePredictsByTheLessThanRuleAndDefaultDirections() {
    TreeEnsemble model = TreeEnsemble.builder(XYZ).addTree(handTree()).build();

    assertThat(model.predict(new double[] {0.1, 0.5, 3})).isEqualTo(3);     // x<.5, y<1, x<.2
    assertThat(model.predict(new double[] {0.2, 0.5, 3})).isEqualTo(5);     // x = .2 is not < .2
    assertThat(model.predict(new double[] {0.3, 1.0, 3})).isEqualTo(-2);    // y = 1 goes right
    assertThat(model.predict(new double[] {0.9, 0, -1})).isEqualTo(7);
    assertThat(model.predict(new double[] {0.9, 2.5, 1})).isEqualTo(11);
    // NaN x goes left (default), then y NaN goes right (default false) to -2.
    assertThat(model.predict(new double[] {Double.NaN, Double.NaN, 0})).isEqualTo(-2);
    // x right, z NaN left to 7.
    assertThat(model.predict(new double[] {0.9, 0, Double.NaN})).isEqualTo(7);
    assertThat(model.treeCount()).isEqualTo(1);
    assertThat(model.leafCount()).isEqualTo(6);
    assertThat(model.nodeCount()).isEqualTo(11);
    assertThat(model.maxDepth()).isEqualTo(3);
  }

  @Test
  void expectedValueIsTheCoverWeightedMeanOfTheLeaves() {
    TreeEnsemble model = TreeEnsemble.builder(XYZ).baseScore(1).addTree(handTree()).build();
    // (3·10 + 5·15 − 2·35 + 7·30 + 1·4 + 11·6) / 100 = 315 / 100
    assertThat(model.expectedValue()).isCloseTo(1 + 3.15, within(1e-12));
  }

  @Test
  void pathDependentEqualsBruteForceShapleyOfTheCoverWeightedGame() {
    TreeEnsemble model = handModel();
    TreeShapValues shap = TreeShap.pathDependent(model).explain(ROWS);
    TreeShapValues algorithm2 = TreeShap.pathDependentAlgorithm2(model).explain(ROWS);

    for (int r = 0; r < ROWS.length; r++) {
      double[] x = ROWS[r];
      var exact = Shapley.exact(CoalitionGame.of(XYZ, s -> pathGame(model, x, s)));
      assertThat(shap.row(r)).as("row %d", r).containsExactly(exact.values(), within(1e-12));
      assertThat(algorithm2.row(r)).as("row %d", r).containsExactly(exact.values(), within(1e-12));
      assertThat(shap.baseValue()).isCloseTo(exact.baseValue(), within(1e-12));
      assertThat(shap.prediction(r)).isCloseTo(exact.fullValue(), within(1e-12));
    }
    assertThat(shap.maxEfficiencyGap()).isLessThan(1e-12);
    assertThat(shap.method()).isEqualTo("path-dependent");
  }

  @Test
  void interventionalEqualsBruteForceShapleyOfTheBackgroundMeanGame() {
    TreeEnsemble model = handModel();
    double[][] background = {{0.05, 0.5, 0}, {0.6, 1.7, -2}, {0.4, 2.5, 3}, {0.8, 0.9, Double.NaN},
        {Double.NaN, 1.2, 0.5}};
    TreeShapValues shap = TreeShap.interventional(model, background).explain(ROWS);

    for (int r = 0; r < ROWS.length; r++) {
      double[] x = ROWS[r];
      var exact = Shapley.exact(CoalitionGame.of(XYZ, s -> interventionalGame(model, x, background, s)));
      assertThat(shap.row(r)).as("row %d", r).containsExactly(exact.values(), within(1e-12));
      assertThat(shap.baseValue()).isCloseTo(exact.baseValue(), within(1e-12));
    }
    assertThat(shap.maxEfficiencyGap()).isLessThan(1e-12);
    assertThat(shap.method()).isEqualTo("interventional");
  }

  @Test
  void randomDeepEnsemblesMatchBruteForceInBothModes() {
    SplittableRandom random = new SplittableRandom(7);
    int features = 7;
    List<String> names = CoalitionGame.defaultNames(features);
    TreeEnsemble.Builder b = TreeEnsemble.builder(names).baseScore(-3);
    for (int t = 0; t < 6; t++) {
      b.addTree(randomTree(random, features, 5, true));
    }
    TreeEnsemble model = b.build();
    double[][] rows = randomRows(random, 12, features);
    double[][] background = randomRows(random, 6, features);

    TreeShapValues path = TreeShap.pathDependent(model).explain(rows);
    TreeShapValues algorithm2 = TreeShap.pathDependentAlgorithm2(model).explain(rows);
    TreeShapValues interventional = TreeShap.interventional(model, background).explain(rows);

    for (int r = 0; r < rows.length; r++) {
      double[] x = rows[r];
      var p = Shapley.exact(CoalitionGame.of(names, s -> pathGame(model, x, s)));
      var i = Shapley.exact(CoalitionGame.of(names, s -> interventionalGame(model, x, background, s)));
      assertThat(path.row(r)).as("path row %d", r).containsExactly(p.values(), within(1e-9));
      assertThat(algorithm2.row(r)).as("algorithm 2 row %d", r).containsExactly(p.values(), within(1e-9));
      assertThat(interventional.row(r)).as("interventional row %d", r).containsExactly(i.values(), within(1e-9));
    }
    assertThat(path.maxEfficiencyGap()).isLessThan(1e-9);
    assertThat(interventional.maxEfficiencyGap()).isLessThan(1e-9);
  }

  @Test
  void leafTablesAndAlgorithm2AgreeOnDeepAndShallowTrees() {
    SplittableRandom random = new SplittableRandom(3);
    int features = 12;
    TreeEnsemble.Builder b = TreeEnsemble.builder(features).baseScore(0.5);
    for (int t = 0; t < 20; t++) {
      b.addTree(randomTree(random, features, 3 + t % 8, t % 2 == 0));
    }
    b.addTree(randomTree(random, features, 10, true)); // too big to tabulate: Algorithm 2 inside pathDependent
    TreeEnsemble model = b.build();
    double[][] rows = randomRows(random, 100, features);

    TreeShapValues tables = TreeShap.pathDependent(model).explain(rows);
    TreeShapValues algorithm2 = TreeShap.pathDependentAlgorithm2(model).explain(rows);

    for (int r = 0; r < rows.length; r++) {
      assertThat(tables.row(r)).as("row %d", r).containsExactly(algorithm2.row(r), within(1e-9));
    }
    assertThat(tables.maxEfficiencyGap()).isLessThan(1e-9);
    assertThat(algorithm2.maxEfficiencyGap()).isLessThan(1e-9);
    LeafGameTables tableInfo = new LeafGameTables(model);
    assertThat(tableInfo.isTabulated(0)).isTrue();
    assertThat(tableInfo.isTabulated(20)).isFalse();
  }

  @Test
  void zeroCoverBranchesAreExplainedExactly() {
    // A leaf no training row reached (cover 0): z = 0 on the way to it, so the table's ratio form
    // (1 − z)/z cannot be used for its sibling paths; the plain form must give the same values.
    TreeEnsemble model = TreeEnsemble.builder(XYZ)
        .addTree(split(0, 0, true, 10, split(1, 0, true, 10, leaf(5, 10), leaf(-7, 0)), leaf(3, 0)))
        .addTree(split(2, 1, true, 4, leaf(1, 4), split(0, 2, true, 1e-9, leaf(9, 0), leaf(2, 0))))
        .build();
    for (double[] x : ROWS) {
      var exact = Shapley.exact(CoalitionGame.of(XYZ, s -> pathGame(model, x, s)));
      assertThat(TreeShap.pathDependent(model).explain(x).row(0)).containsExactly(exact.values(), within(1e-12));
      assertThat(TreeShap.pathDependentAlgorithm2(model).explain(x).row(0))
          .containsExactly(exact.values(), within(1e-12));
    }
  }

  @Test
  void threadsGiveIdenticalValues() {
    SplittableRandom random = new SplittableRandom(5);
    TreeEnsemble.Builder b = TreeEnsemble.builder(6);
    for (int t = 0; t < 10; t++) {
      b.addTree(randomTree(random, 6, 6, true));
    }
    TreeEnsemble model = b.build();
    double[][] rows = randomRows(random, 1000, 6);
    double[][] background = randomRows(random, 3, 6);

    for (TreeShap shap : List.of(TreeShap.pathDependent(model), TreeShap.interventional(model, background))) {
      TreeShapValues one = shap.explain(rows);
      TreeShapValues three = shap.withThreads(3).explain(rows);
      for (int r = 0; r < rows.length; r++) {
        assertThat(three.row(r)).isEqualTo(one.row(r));
      }
      assertThat(three.predictions()).isEqualTo(one.predictions());
    }
    assertThatThrownBy(() -> TreeShap.pathDependent(model).withThreads(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("threads");
  }

  @Test
  void leafTableOfOneFeatureIsTheTwoPlayerFormula() {
    // k = 1: T({}) = v·w(0) = v, T({0}) = v·(w(1)·1 + w(0)·z) = v·z (w(1) = 0 for the grand coalition).
    assertThat(LeafGameTables.tabulate(6, new double[] {0.25})).containsExactly(6, 1.5);
    // k = 2, z = (a, b), w(0) = w(1) = 1/2, w(2) = 0: T({}) = v/2, T({0}) = v(1 + a)/2, T({1}) = v(1 + b)/2,
    // T({0,1}) = v(w(0)·ab + w(1)·(a + b) + w(2)) = v(ab + a + b)/2.
    assertThat(LeafGameTables.tabulate(2, new double[] {0.5, 0.25}))
        .containsExactly(new double[] {1, 1.5, 1.25, 0.875}, within(1e-15));
  }

  @Test
  void coversThatDoNotAddUpStillGiveExactShapleyOfTheRatioGame() {
    // xgboost's covers (hessian sums) are rounded floats; children need not sum to the parent.
    SplittableRandom random = new SplittableRandom(11);
    List<String> names = CoalitionGame.defaultNames(5);
    TreeEnsemble model = TreeEnsemble.builder(names).addTree(randomTree(random, 5, 6, false))
        .addTree(randomTree(random, 5, 4, false)).build();
    for (double[] x : randomRows(random, 8, 5)) {
      var exact = Shapley.exact(CoalitionGame.of(names, s -> pathGame(model, x, s)));
      TreeShapValues shap = TreeShap.pathDependent(model).explain(x);
      assertThat(shap.row(0)).containsExactly(exact.values(), within(1e-9));
      assertThat(TreeShap.pathDependentAlgorithm2(model).explain(x).row(0)).containsExactly(exact.values(),
          within(1e-9));
      assertThat(shap.maxEfficiencyGap()).isLessThan(1e-9);
    }
  }

  @Test
  void stumpsGiveEachFeatureItsOwnStumpsContribution() {
    // f(x) = 2 + s0(x0) + s1(x1) + s2(x2): additive, so φ_i = s_i(x_i) − E[s_i].
    TreeEnsemble model = TreeEnsemble.builder(XYZ).baseScore(2)
        .addTree(split(0, 1.0, true, 10, leaf(4, 4), leaf(-1, 6)))    // E = (16 − 6)/10 = 1
        .addTree(split(1, 0.0, false, 8, leaf(10, 2), leaf(2, 6)))    // E = (20 + 12)/8 = 4
        .addTree(split(2, 5.0, true, 5, leaf(0, 1), leaf(5, 4)))      // E = 20/5 = 4
        .build();
    double[] x = {0.5, 3, Double.NaN};   // s0 = 4, s1 = 2, s2 = 0 (NaN goes left)

    TreeShapValues path = TreeShap.pathDependent(model).explain(x);
    assertThat(path.row(0)).containsExactly(new double[] {4 - 1, 2 - 4, 0 - 4}, within(1e-12));
    assertThat(path.baseValue()).isCloseTo(2 + 1 + 4 + 4, within(1e-12));
    assertThat(path.prediction(0)).isEqualTo(8);

    double[][] background = {{2, -1, 0}, {0, 1, 9}};   // mean s0 = 1.5, s1 = 6, s2 = 2.5
    TreeShapValues interventional = TreeShap.interventional(model, background).explain(x);
    assertThat(interventional.row(0)).containsExactly(new double[] {4 - 1.5, 2 - 6, 0 - 2.5}, within(1e-12));
    assertThat(interventional.baseValue()).isCloseTo(2 + 1.5 + 6 + 2.5, within(1e-12));
  }

  @Test
  void missingValuesFollowTheDefaultDirectionInAttributions() {
    // One split, missing goes right: a NaN row is a "right" row and gets the right leaf's attribution.
    TreeEnsemble model = TreeEnsemble.builder(List.of("a")).addTree(split(0, 0, false, 10, leaf(1, 5), leaf(3, 5)))
        .build();
    TreeShap shap = TreeShap.pathDependent(model);

    assertThat(shap.explain(new double[] {Double.NaN}).value(0, 0)).isEqualTo(1.0);   // 3 − 2
    assertThat(shap.explain(new double[] {5}).value(0, 0)).isEqualTo(1.0);
    assertThat(shap.explain(new double[] {-5}).value(0, 0)).isEqualTo(-1.0);
    // Against a background that is all missing, a missing row changes nothing.
    TreeShap interventional = TreeShap.interventional(model, new double[][] {{Double.NaN}});
    assertThat(interventional.explain(new double[] {Double.NaN}).value(0, 0)).isZero();
    assertThat(interventional.explain(new double[] {-1}).value(0, 0)).isEqualTo(-2.0);
  }

  @Test
  void float32FeaturesRoundLikeXgboost() {
    TreeNode stump = split(0, 0.1f, true, 2, leaf(-1, 1), leaf(1, 1));
    TreeEnsemble doubles = TreeEnsemble.builder(1).addTree(stump).build();
    TreeEnsemble floats = TreeEnsemble.builder(1).float32Features(true).addTree(stump).build();
    // 0.1 < (double) 0.1f = 0.10000000149…, but (float) 0.1 == 0.1f is not < 0.1f.
    assertThat(doubles.predict(new double[] {0.1})).isEqualTo(-1);
    assertThat(floats.predict(new double[] {0.1})).isEqualTo(1);
    assertThat(TreeShap.pathDependent(floats).explain(new double[] {0.1}).value(0, 0)).isEqualTo(1.0);
  }

  @Test
  void singleLeafTreesOnlyShiftTheBase() {
    TreeEnsemble model = TreeEnsemble.builder(XYZ).baseScore(1).addTree(leaf(5, 10)).build();
    TreeShapValues shap = TreeShap.pathDependent(model).explain(new double[] {1, 2, 3});
    assertThat(shap.row(0)).containsExactly(0, 0, 0);
    assertThat(shap.baseValue()).isEqualTo(6);
    assertThat(shap.prediction(0)).isEqualTo(6);
  }

  @Test
  void rankingAndMeanAbsoluteSummariseRows() {
    TreeEnsemble model = TreeEnsemble.builder(XYZ)
        .addTree(split(2, 0, true, 2, leaf(-10, 1), leaf(10, 1)))
        .addTree(split(0, 0, true, 2, leaf(-1, 1), leaf(1, 1)))
        .build();
    TreeShapValues shap = TreeShap.pathDependent(model).explain(new double[][] {{1, 0, 1}, {-1, 0, -1}});
    assertThat(shap.meanAbsolute()).containsExactly(1, 0, 10);
    assertThat(shap.ranking()).containsExactly("z", "x", "y");
    assertThat(shap.toString()).startsWith("TreeShapValues[path-dependent, 2 rows x 3 features");
  }

  @Test
  void rejectsBadTreesAndRows() {
    assertThatThrownBy(() -> TreeEnsemble.builder(XYZ).addTree(split(3, 0, leaf(0, 1), leaf(0, 1))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("feature 3");
    assertThatThrownBy(() -> split(0, Double.NaN, leaf(0, 1), leaf(0, 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NaN");
    assertThatThrownBy(() -> split(0, 1, leaf(0, 0), leaf(0, 0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cover");
    assertThatThrownBy(() -> leaf(Double.POSITIVE_INFINITY, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaf value");
    assertThatThrownBy(() -> TreeEnsemble.builder(XYZ).build()).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> TreeEnsemble.builder(List.of("a", "a")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("distinct");
    TreeEnsemble model = handModel();
    assertThatThrownBy(() -> model.predict(new double[2]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("row has 2 values");
    assertThatThrownBy(() -> TreeShap.pathDependent(model).explain(new double[][] {{1, 2, 3}, {1}}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("row 1 has 1 values");
    assertThatThrownBy(() -> TreeShap.interventional(model, new double[0][]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("background");
  }

  // ---- brute-force games, written over the flat arrays' public behaviour and the TreeNode definition ----

  /** v(S): base + Σ trees, features in S from x, the others averaged by cover(child)/cover(parent). */
  static double pathGame(TreeEnsemble model, double[] x, long s) {
    double sum = model.baseScore();
    for (int t = 0; t < model.treeCount(); t++) {
      sum += conditional(model, model.root(t), x, s);
    }
    return sum;
  }

  private static double conditional(TreeEnsemble m, int node, double[] x, long s) {
    int f = m.feature[node];
    if (f == TreeEnsemble.LEAF) {
      return m.value[node];
    }
    if ((s & (1L << f)) != 0) {
      return conditional(m, m.next(node, x[f]), x, s);
    }
    return (m.cover[m.left[node]] * conditional(m, m.left[node], x, s)
        + m.cover[m.right[node]] * conditional(m, m.right[node], x, s)) / m.cover[node];
  }

  /** v(S): mean over the background of f with the features in S from x and the others from z. */
  static double interventionalGame(TreeEnsemble model, double[] x, double[][] background, long s) {
    double sum = 0;
    for (double[] z : background) {
      double[] mixed = z.clone();
      for (int f = 0; f < x.length; f++) {
        if ((s & (1L << f)) != 0) {
          mixed[f] = x[f];
        }
      }
      sum += model.predict(mixed);
    }
    return sum / background.length;
  }

  static TreeNode randomTree(SplittableRandom r, int features, int depth, boolean consistentCovers) {
    if (depth == 0 || (depth < 4 && r.nextInt(4) == 0)) {
      return leaf(r.nextDouble(-10, 10), 1 + r.nextInt(20));
    }
    TreeNode left = randomTree(r, features, depth - 1, consistentCovers);
    TreeNode right = randomTree(r, features, depth - 1, consistentCovers);
    double cover = left.cover() + right.cover();
    if (!consistentCovers) {
      cover *= r.nextDouble(0.8, 1.2);
    }
    return split(r.nextInt(features), Math.round(r.nextDouble(-1, 1) * 4) / 4.0, r.nextBoolean(), cover, left,
        right);
  }

  static double[][] randomRows(SplittableRandom r, int n, int features) {
    List<double[]> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double[] row = new double[features];
      for (int f = 0; f < features; f++) {
        row[f] = r.nextInt(8) == 0 ? Double.NaN : Math.round(r.nextDouble(-1.2, 1.2) * 8) / 8.0;
      }
      rows.add(row);
    }
    return rows.toArray(new double[0][]);
  }
}
