package io.infermark.attribution.surrogate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.attribution.tree.TreeEnsemble;
import io.infermark.attribution.tree.XgboostJsonDump;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import ml.dmlc.xgboost4j.java.XGBoostError;

/**
 * The only class of the module that touches xgboost4j. It is loaded only after
 * {@link XgboostSurrogate} has checked that xgboost4j is on the classpath, and its signatures hold
 * none of xgboost's types, so nothing else loads them.
 */
final class XgboostTrainer {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * A trained model converted to a {@link TreeEnsemble}.
   *
   * @param ensemble the trees, in margin units
   * @param xgboostMargins xgboost's own margin prediction for each row of the prediction matrix
   */
  record Trained(TreeEnsemble ensemble, double[] xgboostMargins) {}

  private XgboostTrainer() {
  }

  /**
   * Trains on the first {@code trainRows} rows of {@code x} (row-major, {@code features} columns, NaN
   * missing) with {@code labels}, then predicts margins for all rows of {@code x}.
   */
  static Trained train(float[] x, int rows, int trainRows, int features, float[] labels, Map<String, Object> params,
      int rounds, List<String> featureNames) {
    DMatrix train = null;
    DMatrix all = null;
    Booster booster = null;
    try {
      float[] trainX = new float[trainRows * features];
      System.arraycopy(x, 0, trainX, 0, trainX.length);
      train = new DMatrix(trainX, trainRows, features, Float.NaN);
      train.setLabel(labels);
      booster = XGBoost.train(train, new HashMap<>(params), rounds, new HashMap<>(), null, null);
      TreeEnsemble ensemble = toEnsemble(booster, featureNames);
      all = new DMatrix(x, rows, features, Float.NaN);
      float[][] margins = booster.predict(all, true);
      double[] out = new double[rows];
      for (int r = 0; r < rows; r++) {
        out[r] = margins[r][0];
      }
      return new Trained(ensemble, out);
    } catch (XGBoostError e) {
      throw new IllegalStateException("xgboost failed to train the surrogate: " + e.getMessage(), e);
    } finally {
      if (booster != null) {
        booster.dispose();
      }
      if (train != null) {
        train.dispose();
      }
      if (all != null) {
        all.dispose();
      }
    }
  }

  /** Trains and returns xgboost's own booster (for tests that compare with it); the caller disposes it. */
  static Booster trainBooster(DMatrix train, Map<String, Object> params, int rounds) throws XGBoostError {
    return XGBoost.train(train, new HashMap<>(params), rounds, new HashMap<>(), null, null);
  }

  /**
   * The booster's trees and base margin as a {@link TreeEnsemble}, through its JSON dump with statistics.
   * The dump is taken without feature names, so splits say {@code f<i>}, read strictly as column
   * {@code i}: the table's column names (which may themselves look like {@code f0}) never enter it.
   */
  static TreeEnsemble toEnsemble(Booster booster, List<String> featureNames) throws XGBoostError {
    String[] dump = booster.getModelDump((String) null, true, "json");
    return XgboostJsonDump.parse(List.of(dump), featureNames, baseMargin(booster), XgboostJsonDump.Naming.INDEXES);
  }

  /**
   * The constant xgboost adds to the trees' sum, in margin units: {@code learner_model_param.base_score}
   * from the model's JSON, which is stored in output units — so {@code logit} of it for
   * {@code binary:logistic}.
   */
  static double baseMargin(Booster booster) throws XGBoostError {
    JsonNode model;
    try {
      model = JSON.readTree(booster.toByteArray("json"));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read xgboost's model JSON: " + e.getMessage(), e);
    }
    JsonNode learner = model.path("learner");
    String text = learner.path("learner_model_param").path("base_score").asText("");
    String objective = learner.path("objective").path("name").asText("");
    // 3.x writes a vector, e.g. "[3.544471E-1]"; older versions a plain number.
    String first = text.replace("[", "").replace("]", "").split(",")[0].trim();
    double base;
    try {
      base = Float.parseFloat(first);
    } catch (NumberFormatException e) {
      throw new IllegalStateException("unexpected base_score '" + text + "' in xgboost's model JSON", e);
    }
    return switch (objective) {
      case "reg:squarederror", "reg:absoluteerror", "reg:pseudohubererror" -> base;
      case "binary:logistic", "reg:logistic" -> Math.log(base / (1 - base));
      default -> throw new IllegalStateException("objective '" + objective + "' is not supported for conversion");
    };
  }
}
