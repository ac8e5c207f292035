package io.infermark.attribution.surrogate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.attribution.tree.TreeEnsemble;
import io.infermark.attribution.tree.TreeShap;
import io.infermark.attribution.tree.TreeShapValues;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import org.junit.jupiter.api.Test;

/**
 * Our reading of xgboost models and our TreeSHAP against xgboost itself: predictions against
 * {@code Booster.predict}, path-dependent SHAP values against {@code Booster.predictContrib} (which
 * computes the same game in float32).
 */
class XgboostCrossCheckTest {

  private static final int ROWS = 400;
  private static final int FEATURES = 5;
  private static final List<String> NAMES = List.of("a", "b", "c", "d", "e");

  /** Rows with interactions, a feature with 15 % missing values and one that is pure noise. */
  private static float[] data(SplittableRandom r) {
    float[] x = new float[ROWS * FEATURES];
    for (int i = 0; i < ROWS; i++) {
      for (int f = 0; f < FEATURES; f++) {
        x[i * FEATURES + f] = (float) r.nextDouble(-2, 2);
      }
      if (r.nextInt(100) < 15) {
        x[i * FEATURES + 1] = Float.NaN;
      }
    }
    return x;
  }

  private static float[] regressionLabels(float[] x, SplittableRandom r) {
    float[] y = new float[ROWS];
    for (int i = 0; i < ROWS; i++) {
      float a = x[i * FEATURES];
      float b = x[i * FEATURES + 1];
      float c = x[i * FEATURES + 2];
      y[i] = (float) (100 + 30 * a + (Float.isNaN(b) ? 25 : 10 * b * c) + 5 * Math.sin(3 * c) + r.nextGaussian());
    }
    return y;
  }

  @Test
  void regressionModelMatchesXgboostPredictionsAndContributions() throws Exception {
    SplittableRandom r = new SplittableRandom(42);
    float[] x = data(r);
    float[] y = regressionLabels(x, r);
    checkAgainstXgboost(x, y, Map.of("objective", "reg:squarederror", "max_depth", 5, "eta", 0.3, "seed", 0,
        "nthread", 1, "verbosity", 0), 30, 1e-5);
  }

  @Test
  void logisticModelMatchesXgboostInMarginSpace() throws Exception {
    SplittableRandom r = new SplittableRandom(43);
    float[] x = data(r);
    float[] y = regressionLabels(x, r);
    float[] tail = new float[ROWS];
    for (int i = 0; i < ROWS; i++) {
      tail[i] = y[i] > 130 ? 1 : 0;
    }
    Map<String, Object> params = Map.of("objective", "binary:logistic", "max_depth", 4, "eta", 0.3, "seed", 0,
        "nthread", 1, "verbosity", 0);
    TreeEnsemble model = checkAgainstXgboost(x, tail, params, 25, 1e-5);

    // checkAgainstXgboost matched margins, which holds only if the base margin is logit(base_score): here
    // base_score and its logit are far apart, so reading base_score as the margin would have failed it.
    double baseProbability = 1 / (1 + Math.exp(-model.baseScore()));
    assertThat(Math.abs(model.baseScore() - baseProbability)).isGreaterThan(0.1);
    // And through the link: sigmoid of our margin is xgboost's probability, row by row.
    DMatrix matrix = new DMatrix(x, ROWS, FEATURES, Float.NaN);
    matrix.setLabel(tail);
    Booster booster = XgboostTrainer.trainBooster(matrix, params, 25);
    try {
      float[][] probabilities = booster.predict(matrix);
      for (int i = 0; i < ROWS; i++) {
        double[] row = new double[FEATURES];
        for (int f = 0; f < FEATURES; f++) {
          row[f] = x[i * FEATURES + f];
        }
        assertThat(1 / (1 + Math.exp(-model.predict(row)))).as("probability of row %d", i)
            .isCloseTo(probabilities[i][0], within(1e-6));
      }
    } finally {
      booster.dispose();
      matrix.dispose();
    }
  }

  /** Returns our ensemble after checking predictions and contributions row by row. */
  private static TreeEnsemble checkAgainstXgboost(float[] x, float[] y, Map<String, Object> params, int rounds,
      double tolerance) throws Exception {
    DMatrix matrix = new DMatrix(x, ROWS, FEATURES, Float.NaN);
    matrix.setLabel(y);
    Booster booster = XgboostTrainer.trainBooster(matrix, params, rounds);
    try {
      TreeEnsemble model = XgboostTrainer.toEnsemble(booster, NAMES);
      float[][] margins = booster.predict(matrix, true);
      float[][] contributions = booster.predictContrib(matrix, 0);
      double[][] rows = new double[ROWS][FEATURES];
      for (int i = 0; i < ROWS; i++) {
        for (int f = 0; f < FEATURES; f++) {
          rows[i][f] = x[i * FEATURES + f];
        }
      }
      TreeShapValues ours = TreeShap.pathDependent(model).explain(rows);
      TreeShapValues algorithm2 = TreeShap.pathDependentAlgorithm2(model).explain(rows);

      assertThat(model.treeCount()).isEqualTo(rounds);
      double scale = 0;
      for (int i = 0; i < ROWS; i++) {
        scale = Math.max(scale, Math.abs(margins[i][0]));
      }
      double tol = tolerance * Math.max(1, scale);
      for (int i = 0; i < ROWS; i++) {
        assertThat(model.predict(rows[i])).as("prediction of row %d", i).isCloseTo(margins[i][0], within(tol));
        for (int f = 0; f < FEATURES; f++) {
          assertThat(ours.value(i, f)).as("row %d feature %d", i, f).isCloseTo(contributions[i][f], within(tol));
          assertThat(algorithm2.value(i, f)).isCloseTo(ours.value(i, f), within(1e-9 * Math.max(1, scale)));
        }
        // predictContrib's last column is the bias: base margin + each tree's expected value.
        assertThat(ours.baseValue()).isCloseTo(contributions[i][FEATURES], within(tol));
      }
      assertThat(ours.maxEfficiencyGap()).isLessThan(1e-9 * Math.max(1, scale));
      // The label depends on a, b, c; d and e are noise.
      assertThat(ours.ranking().subList(0, 3)).containsExactlyInAnyOrder("a", "b", "c");
      return model;
    } finally {
      booster.dispose();
      matrix.dispose();
    }
  }
}
