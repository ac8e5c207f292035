package io.infermark.attribution.surrogate;

import java.util.Locale;
import java.util.OptionalDouble;

/**
 * How well a surrogate model predicts requests it was not trained on, so its explanation can be
 * trusted or not: R² and RMSE (ms) for a latency target, AUC and log-loss for a tail target, on a
 * seeded held-out split. An explanation is only as good as the model: a low R² (say below 0.5) or an
 * AUC near 0.5 means the features do not explain the latency, and their attributions explain little.
 * All are empty when nothing was held out.
 */
public final class FitQuality {

  private final boolean tail;
  private final int trainRows;
  private final int testRows;
  private final OptionalDouble rSquared;
  private final OptionalDouble rmse;
  private final OptionalDouble auc;
  private final OptionalDouble logLoss;

  private FitQuality(boolean tail, int trainRows, int testRows, OptionalDouble rSquared, OptionalDouble rmse,
      OptionalDouble auc, OptionalDouble logLoss) {
    this.tail = tail;
    this.trainRows = trainRows;
    this.testRows = testRows;
    this.rSquared = rSquared;
    this.rmse = rmse;
    this.auc = auc;
    this.logLoss = logLoss;
  }

  /**
   * Regression quality of predictions against actual values on the held-out rows: {@code R² = 1 −
   * Σ(y − ŷ)² / Σ(y − ȳ)²} (empty when the held-out values are all equal) and
   * {@code RMSE = √(Σ(y − ŷ)²/n)}.
   */
  static FitQuality regression(int trainRows, double[] actual, double[] predicted) {
    int n = actual.length;
    if (n == 0) {
      return new FitQuality(false, trainRows, 0, OptionalDouble.empty(), OptionalDouble.empty(),
          OptionalDouble.empty(), OptionalDouble.empty());
    }
    double mean = 0;
    for (double y : actual) {
      mean += y / n;
    }
    double sse = 0;
    double sst = 0;
    for (int i = 0; i < n; i++) {
      sse += (actual[i] - predicted[i]) * (actual[i] - predicted[i]);
      sst += (actual[i] - mean) * (actual[i] - mean);
    }
    return new FitQuality(false, trainRows, n, sst > 0 ? OptionalDouble.of(1 - sse / sst) : OptionalDouble.empty(),
        OptionalDouble.of(Math.sqrt(sse / n)), OptionalDouble.empty(), OptionalDouble.empty());
  }

  /**
   * Classification quality of probabilities against 0/1 labels on the held-out rows: AUC, the
   * probability that a random tail request scores above a random other one, ties counting half (empty
   * when one class is absent); log-loss {@code −mean(y·ln p + (1−y)·ln(1−p))}, p clipped to
   * [1e−15, 1 − 1e−15].
   */
  static FitQuality classification(int trainRows, double[] labels, double[] probabilities) {
    int n = labels.length;
    if (n == 0) {
      return new FitQuality(true, trainRows, 0, OptionalDouble.empty(), OptionalDouble.empty(),
          OptionalDouble.empty(), OptionalDouble.empty());
    }
    double loss = 0;
    for (int i = 0; i < n; i++) {
      double p = Math.min(1 - 1e-15, Math.max(1e-15, probabilities[i]));
      loss -= labels[i] == 1 ? Math.log(p) : Math.log(1 - p);
    }
    return new FitQuality(true, trainRows, n, OptionalDouble.empty(), OptionalDouble.empty(),
        auc(labels, probabilities), OptionalDouble.of(loss / n));
  }

  /**
   * Mann–Whitney AUC: over all (positive, negative) pairs, 1 when the positive scores higher, ½ on
   * ties; from average ranks, {@code (R₊ − n₊(n₊+1)/2) / (n₊·n₋)}, O(n log n).
   */
  static OptionalDouble auc(double[] labels, double[] scores) {
    int n = labels.length;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, java.util.Comparator.comparingDouble(i -> scores[i]));
    double positiveRanks = 0;
    long positives = 0;
    for (int i = 0; i < n;) {
      int j = i;
      while (j + 1 < n && scores[order[j + 1]] == scores[order[i]]) {
        j++;
      }
      double rank = (i + j) / 2.0 + 1; // ranks i+1 … j+1 share their average
      for (int k = i; k <= j; k++) {
        if (labels[order[k]] == 1) {
          positiveRanks += rank;
          positives++;
        }
      }
      i = j + 1;
    }
    long negatives = n - positives;
    if (positives == 0 || negatives == 0) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of((positiveRanks - positives * (positives + 1) / 2.0) / ((double) positives * negatives));
  }

  /** True for a tail (classification) target. */
  public boolean isTail() {
    return tail;
  }

  /** Rows the model was trained on. */
  public int trainRows() {
    return trainRows;
  }

  /** Held-out rows the quality was measured on. */
  public int testRows() {
    return testRows;
  }

  /** Held-out R² of a latency target. */
  public OptionalDouble rSquared() {
    return rSquared;
  }

  /** Held-out root-mean-square error of a latency target, ms. */
  public OptionalDouble rmseMillis() {
    return rmse;
  }

  /** Held-out AUC of a tail target. */
  public OptionalDouble auc() {
    return auc;
  }

  /** Held-out log-loss (natural log) of a tail target. */
  public OptionalDouble logLoss() {
    return logLoss;
  }

  @Override
  public String toString() {
    if (testRows == 0) {
      return "FitQuality[not measured: nothing held out, " + trainRows + " training rows]";
    }
    String held = " on " + testRows + " held-out rows (" + trainRows + " trained)]";
    if (tail) {
      return String.format(Locale.ROOT, "FitQuality[AUC %s, log-loss %.4f", format(auc), logLoss.getAsDouble()) + held;
    }
    return String.format(Locale.ROOT, "FitQuality[R² %s, RMSE %.3f ms", format(rSquared), rmse.getAsDouble()) + held;
  }

  private static String format(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.3f", v.getAsDouble()) : "n/a";
  }
}
