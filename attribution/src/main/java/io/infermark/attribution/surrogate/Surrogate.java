package io.infermark.attribution.surrogate;

import io.infermark.attribution.tree.TreeEnsemble;
import io.infermark.attribution.tree.TreeShap;
import io.infermark.attribution.tree.TreeShapValues;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.SplittableRandom;

/**
 * A trained surrogate model of per-request latency: the tree ensemble, the table and target it was
 * trained on, how well it predicts held-out requests, and how faithfully it was converted from the
 * training library. {@link #explain()} attributes each request's prediction to its features.
 */
public final class Surrogate {

  private final TreeEnsemble model;
  private final FeatureTable table;
  private final SurrogateTarget target;
  private final int[] rows;
  private final FitQuality fit;
  private final double conversionGap;
  private final OptionalDouble tailThreshold;
  private final String trainer;

  Surrogate(TreeEnsemble model, FeatureTable table, SurrogateTarget target, int[] rows, FitQuality fit,
      double conversionGap, OptionalDouble tailThreshold, String trainer) {
    this.model = model;
    this.table = table;
    this.target = target;
    this.rows = rows;
    this.fit = fit;
    this.conversionGap = conversionGap;
    this.tailThreshold = tailThreshold;
    this.trainer = trainer;
  }

  /** The trees; predictions are in {@link SurrogateTarget#unit()} (ms, or log-odds for a tail target). */
  public TreeEnsemble model() {
    return model;
  }

  /** The table the model was trained on. */
  public FeatureTable table() {
    return table;
  }

  /** What the model predicts. */
  public SurrogateTarget target() {
    return target;
  }

  /** Held-out quality. */
  public FitQuality fit() {
    return fit;
  }

  /** The number of table rows with a defined target: the rows trained on, held out and explained. */
  public int rowCount() {
    return rows.length;
  }

  /**
   * The largest |difference| between this model's predictions and the training library's own, over
   * all rows: the cost of converting the model (float32 rounding), reported rather than assumed zero.
   */
  public double conversionGap() {
    return conversionGap;
  }

  /**
   * For a tail target, the latency (ms) above which a request was labelled 1: the target's percentile
   * of the training rows' values (held-out rows left out). Empty for a latency target.
   */
  public OptionalDouble tailThresholdMillis() {
    return tailThreshold;
  }

  /**
   * Path-dependent TreeSHAP of every row with a defined target, in the target's unit: a feature left
   * out of a coalition is averaged over the training data that reached each split (tree covers), as
   * xgboost's own {@code predictContrib} does.
   */
  public SurrogateExplanation explain() {
    return explain(TreeShap.pathDependent(model));
  }

  /**
   * Interventional TreeSHAP of every row with a defined target against a background of
   * {@code backgroundRows} rows drawn without replacement from the same rows (seeded; all of them when
   * there are fewer): a feature left out of a coalition takes the background rows' values, breaking its
   * correlation with the others (input length and interference, say), so credit follows what the model
   * does rather than what the data happen to correlate. The base value is the background's mean
   * prediction. The cost grows with {@code rows × backgroundRows}; 100–1000 background rows are usual.
   *
   * @throws IllegalArgumentException if {@code backgroundRows} is not positive
   */
  public SurrogateExplanation explainInterventional(int backgroundRows, long seed) {
    if (backgroundRows <= 0) {
      throw new IllegalArgumentException("backgroundRows must be positive, was " + backgroundRows);
    }
    double[][] all = table.rowsView();
    int[] order = rows.clone();
    SplittableRandom random = new SplittableRandom(seed);
    int n = Math.min(backgroundRows, order.length);
    double[][] background = new double[n][];
    for (int i = 0; i < n; i++) {
      int j = i + random.nextInt(order.length - i);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
      background[i] = all[order[i]];
    }
    return explain(TreeShap.interventional(model, background));
  }

  private SurrogateExplanation explain(TreeShap explainer) {
    double[][] all = table.rowsView();
    double[][] x = new double[rows.length][];
    long[] requestIndexes = new long[rows.length];
    for (int i = 0; i < rows.length; i++) {
      x[i] = all[rows[i]];
      requestIndexes[i] = table.records().get(rows[i]).index();
    }
    TreeShapValues values = explainer.explain(x);
    return new SurrogateExplanation(values, requestIndexes, target, fit);
  }

  @Override
  public String toString() {
    String above = tailThreshold.isPresent()
        ? String.format(Locale.ROOT, " (above %.3f ms)", tailThreshold.getAsDouble()) : "";
    return String.format(Locale.ROOT, "Surrogate[%s of %s%s over %d rows, %s, conversion gap %.3g]", trainer,
        target.name(), above, rows.length, fit, conversionGap);
  }
}
