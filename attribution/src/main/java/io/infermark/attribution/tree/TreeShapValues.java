package io.infermark.attribution.tree;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * SHAP values of a {@link TreeEnsemble} for a set of rows: one attribution per (row, feature), the
 * base value they start from and each row's prediction, in the model's output units.
 *
 * <p>For every row, {@code baseValue() + Σ_features value(row, f) = prediction(row)} up to rounding;
 * {@link #efficiencyGap(int)} and {@link #maxEfficiencyGap()} report how far that is from exact rather
 * than assume it. The base value is the model's {@link TreeEnsemble#expectedValue() cover-weighted
 * expectation} for path-dependent values and its mean prediction over the background rows for
 * interventional ones.
 */
public final class TreeShapValues {

  private final List<String> features;
  private final double[] values;
  private final double[] predictions;
  private final double baseValue;
  private final String method;

  TreeShapValues(List<String> features, double[] values, double[] predictions, double baseValue, String method) {
    this.features = features;
    this.values = values;
    this.predictions = predictions;
    this.baseValue = baseValue;
    this.method = method;
  }

  /** The features, in the model's column order. */
  public List<String> features() {
    return features;
  }

  /** The number of rows explained. */
  public int rowCount() {
    return predictions.length;
  }

  /** How the values were computed: {@code "path-dependent"} or {@code "interventional"}. */
  public String method() {
    return method;
  }

  /** The attribution of feature {@code feature} for row {@code row}. */
  public double value(int row, int feature) {
    return values[index(row, feature)];
  }

  /** Row {@code row}'s attributions, one per feature (a copy). */
  public double[] row(int row) {
    int at = index(row, 0);
    double[] out = new double[features.size()];
    System.arraycopy(values, at, out, 0, out.length);
    return out;
  }

  /** The value every row's attributions start from. */
  public double baseValue() {
    return baseValue;
  }

  /** The model's output for row {@code row}. */
  public double prediction(int row) {
    return predictions[checkRow(row)];
  }

  /** Every row's prediction (a copy). */
  public double[] predictions() {
    return predictions.clone();
  }

  /** {@code prediction(row) − baseValue() − Σ value(row, ·)}: zero up to rounding. */
  public double efficiencyGap(int row) {
    int m = features.size();
    int at = index(row, 0);
    double sum = 0;
    for (int f = 0; f < m; f++) {
      sum += values[at + f];
    }
    return predictions[row] - baseValue - sum;
  }

  /** The largest |{@link #efficiencyGap(int)}| over all rows; 0 when there are none. */
  public double maxEfficiencyGap() {
    double max = 0;
    for (int r = 0; r < predictions.length; r++) {
      max = Math.max(max, Math.abs(efficiencyGap(r)));
    }
    return max;
  }

  /** The mean over rows of |attribution| for each feature, in column order; zeros when there are no rows. */
  public double[] meanAbsolute() {
    int m = features.size();
    double[] out = new double[m];
    int n = predictions.length;
    for (int r = 0; r < n; r++) {
      for (int f = 0; f < m; f++) {
        out[f] += Math.abs(values[r * m + f]);
      }
    }
    for (int f = 0; f < m && n > 0; f++) {
      out[f] /= n;
    }
    return out;
  }

  /** Feature names by decreasing {@link #meanAbsolute() mean |attribution|}; ties keep column order. */
  public List<String> ranking() {
    double[] mean = meanAbsolute();
    List<Integer> order = new ArrayList<>();
    for (int f = 0; f < mean.length; f++) {
      order.add(f);
    }
    order.sort(Comparator.comparingDouble((Integer f) -> -mean[f]));
    List<String> out = new ArrayList<>(order.size());
    for (int f : order) {
      out.add(features.get(f));
    }
    return List.copyOf(out);
  }

  private int checkRow(int row) {
    if (row < 0 || row >= predictions.length) {
      throw new IndexOutOfBoundsException("row " + row + " of " + predictions.length);
    }
    return row;
  }

  private int index(int row, int feature) {
    checkRow(row);
    if (feature < 0 || feature >= features.size()) {
      throw new IndexOutOfBoundsException("feature " + feature + " of " + features.size());
    }
    return row * features.size() + feature;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "TreeShapValues[%s, %d rows x %d features, base %.6g, max gap %.3g]", method,
        rowCount(), features.size(), baseValue, maxEfficiencyGap());
  }
}
