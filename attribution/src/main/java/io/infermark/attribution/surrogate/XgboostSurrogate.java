package io.infermark.attribution.surrogate;

import io.infermark.attribution.tree.TreeEnsemble;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trains a gradient-boosted-trees surrogate of per-request latency with xgboost4j and converts it to
 * a {@link TreeEnsemble}, so that infermark's own TreeSHAP explains it.
 *
 * <pre>{@code
 * FeatureTable table = FeatureTable.builder().build(run.records());
 * Surrogate surrogate = XgboostSurrogate.builder().trees(200).build().fit(table, SurrogateTarget.e2e());
 * SurrogateExplanation why = surrogate.explain();
 * why.importance();     // [input_tokens 84.100 ms, in_flight_at_send 12.700 ms, …]
 * why.fit();            // FitQuality[R² 0.941, RMSE 18.2 ms on 100 held-out rows (400 trained)]
 * }</pre>
 *
 * <p>xgboost4j is an <em>optional</em> dependency: add {@value #MAVEN_COORDINATES} (3.x; Scala is not
 * needed, exclude {@code org.scala-lang}) to use this class. Without it {@link #fit} throws an
 * {@link IllegalStateException} that says so; {@link #isAvailable()} asks first. Nothing else in
 * infermark loads xgboost.
 *
 * <p>Training: rows whose target is undefined (e.g. no token-bearing chunk) are left out; the rest
 * are shuffled with the seed and split into a held-out part ({@link Builder#heldOutFraction(double)},
 * default 0.2) for the {@link FitQuality} and a training part the model is fitted to. A tail target's
 * threshold is the percentile of the training part only ({@link Surrogate#tailThresholdMillis()}). Objective
 * {@code reg:squarederror} for latency targets (predictions and attributions in ms),
 * {@code binary:logistic} for tail targets (in log-odds). With the default single thread, the same
 * table, target and parameters give the same model. After conversion, the ensemble's predictions are
 * compared with xgboost's on every row; {@link Surrogate#conversionGap()} reports the largest
 * difference (float32 rounding, ~1e-4 of the prediction), and a difference above 1e-3 of the largest
 * prediction is an error.
 */
public final class XgboostSurrogate {

  /** The Maven coordinates of the optional dependency. */
  public static final String MAVEN_COORDINATES = "ml.dmlc:xgboost4j_2.12";

  /** The fewest requests with a defined target a surrogate is trained on. */
  public static final int MIN_ROWS = 20;

  private static final Logger LOG = LoggerFactory.getLogger(XgboostSurrogate.class);
  private static final String PROBE_CLASS = "ml.dmlc.xgboost4j.java.XGBoost";

  private final int trees;
  private final int maxDepth;
  private final double eta;
  private final double minChildWeight;
  private final long seed;
  private final int threads;
  private final double heldOutFraction;

  private XgboostSurrogate(Builder b) {
    this.trees = b.trees;
    this.maxDepth = b.maxDepth;
    this.eta = b.eta;
    this.minChildWeight = b.minChildWeight;
    this.seed = b.seed;
    this.threads = b.threads;
    this.heldOutFraction = b.heldOutFraction;
  }

  /**
   * A builder with the defaults: 100 trees of depth 4, eta 0.1, min child weight 1, seed 0, 1 thread,
   * 20 % held out.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** True when xgboost4j is on the classpath. */
  public static boolean isAvailable() {
    try {
      requireXgboost(XgboostSurrogate.class.getClassLoader());
      return true;
    } catch (IllegalStateException e) {
      return false;
    }
  }

  /** The one place that looks for xgboost4j. */
  static void requireXgboost(ClassLoader loader) {
    try {
      Class.forName(PROBE_CLASS, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalStateException("XgboostSurrogate needs xgboost4j, an optional dependency of "
          + "infermark-attribution: add the Maven dependency " + MAVEN_COORDINATES + " (3.x; exclude org.scala-lang,"
          + " which it does not need)", e);
    }
  }

  /**
   * Trains a surrogate of {@code target} on {@code table}.
   *
   * @throws IllegalStateException if xgboost4j is not on the classpath, its native library cannot be
   *     loaded, or the converted model disagrees with xgboost's predictions
   * @throws IllegalArgumentException if fewer than {@value #MIN_ROWS} rows have a defined target, the
   *     training part has fewer than 2 rows, or a tail target's training part holds one class only
   */
  public Surrogate fit(FeatureTable table, SurrogateTarget target) {
    requireXgboost(XgboostSurrogate.class.getClassLoader());
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(target, "target");
    double[] latencies = target.latencies(table.records());
    List<Integer> defined = new ArrayList<>();
    for (int r = 0; r < latencies.length; r++) {
      if (!Double.isNaN(latencies[r])) {
        defined.add(r);
      }
    }
    if (defined.size() < MIN_ROWS) {
      throw new IllegalArgumentException("a surrogate needs at least " + MIN_ROWS + " requests with a defined "
          + target.name() + ", the table has " + defined.size() + " of " + table.rowCount());
    }
    // Seeded Fisher–Yates shuffle; the first `test` rows are held out.
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = defined.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      Integer tmp = defined.get(i);
      defined.set(i, defined.get(j));
      defined.set(j, tmp);
    }
    int n = defined.size();
    int test = (int) Math.round(heldOutFraction * n);
    int train = n - test;
    if (train < 2) {
      throw new IllegalArgumentException("held-out fraction " + heldOutFraction + " leaves " + train
          + " training rows of " + n);
    }
    // Rows in training-first order, so the trainer can train on a prefix and predict all.
    int[] order = new int[n];
    for (int i = 0; i < train; i++) {
      order[i] = defined.get(test + i);
    }
    for (int i = 0; i < test; i++) {
      order[train + i] = defined.get(i);
    }
    // A tail target's threshold comes from the training rows only: the held-out rows must not shape it.
    int[] trainingRows = Arrays.copyOf(order, train);
    double[] labels = target.labels(latencies, trainingRows);
    OptionalDouble threshold = target.isTail() ? OptionalDouble.of(target.tailThreshold(latencies, trainingRows))
        : OptionalDouble.empty();
    if (target.isTail()) {
      boolean zero = false;
      boolean one = false;
      for (int i = 0; i < train; i++) {
        zero |= labels[order[i]] == 0;
        one |= labels[order[i]] == 1;
      }
      if (!(zero && one)) {
        throw new IllegalArgumentException("the training rows of tail target " + target.name()
            + " hold one class only; use more requests or a lower percentile");
      }
    }
    double[][] rows = table.rowsView();
    int m = table.columns().size();
    float[] x = new float[n * m];
    float[] y = new float[train];
    for (int i = 0; i < n; i++) {
      for (int c = 0; c < m; c++) {
        x[i * m + c] = (float) rows[order[i]][c];
      }
      if (i < train) {
        y[i] = (float) labels[order[i]];
      }
    }
    XgboostTrainer.Trained trained;
    try {
      trained = XgboostTrainer.train(x, n, train, m, y, params(target), trees, table.columns());
    } catch (LinkageError e) {
      throw new IllegalStateException("xgboost4j's native library could not be loaded (on Linux it needs libgomp):"
          + " " + e, e);
    }
    TreeEnsemble ensemble = trained.ensemble();
    double[] predictions = new double[n];
    double gap = 0;
    double scale = 1;
    for (int i = 0; i < n; i++) {
      double[] row = new double[m];
      for (int c = 0; c < m; c++) {
        row[c] = x[i * m + c];
      }
      predictions[i] = ensemble.predict(row);
      gap = Math.max(gap, Math.abs(predictions[i] - trained.xgboostMargins()[i]));
      scale = Math.max(scale, Math.abs(trained.xgboostMargins()[i]));
    }
    if (gap > 1e-3 * scale) {
      throw new IllegalStateException(String.format(Locale.ROOT, "the converted model predicts up to %.6g away from"
          + " xgboost's own predictions (largest |prediction| %.6g); the model dump was not read faithfully", gap,
          scale));
    }
    double[] actual = new double[test];
    double[] predicted = new double[test];
    for (int i = 0; i < test; i++) {
      actual[i] = labels[order[train + i]];
      double margin = predictions[train + i];
      predicted[i] = target.isTail() ? 1 / (1 + Math.exp(-margin)) : margin;
    }
    FitQuality fit = target.isTail() ? FitQuality.classification(train, actual, predicted)
        : FitQuality.regression(train, actual, predicted);
    int[] used = defined.stream().mapToInt(Integer::intValue).sorted().toArray();
    LOG.debug("trained surrogate of {} on {} rows: {}, conversion gap {}", target.name(), train, fit, gap);
    return new Surrogate(ensemble, table, target, used, fit, gap, threshold, describe());
  }

  private Map<String, Object> params(SurrogateTarget target) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("objective", target.isTail() ? "binary:logistic" : "reg:squarederror");
    p.put("max_depth", maxDepth);
    p.put("eta", eta);
    p.put("min_child_weight", minChildWeight);
    p.put("seed", seed);
    p.put("nthread", threads);
    p.put("verbosity", 0);
    return p;
  }

  private String describe() {
    return String.format(Locale.ROOT, "xgboost %d trees, depth %d, eta %.3g", trees, maxDepth, eta);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "XgboostSurrogate[%d trees, depth %d, eta %.3g, min child weight %.3g, seed %d,"
        + " %d threads, %.0f%% held out]", trees, maxDepth, eta, minChildWeight, seed, threads, heldOutFraction * 100);
  }

  /** Builds an {@link XgboostSurrogate}; every parameter has a default. */
  public static final class Builder {
    private int trees = 100;
    private int maxDepth = 4;
    private double eta = 0.1;
    private double minChildWeight = 1;
    private long seed;
    private int threads = 1;
    private double heldOutFraction = 0.2;

    private Builder() {}

    /** Boosting rounds (trees); default 100. */
    public Builder trees(int trees) {
      if (trees < 1 || trees > 100_000) {
        throw new IllegalArgumentException("trees must be in [1, 100000], was " + trees);
      }
      this.trees = trees;
      return this;
    }

    /** Maximum tree depth; default 4. */
    public Builder maxDepth(int depth) {
      if (depth < 1 || depth > 16) {
        throw new IllegalArgumentException("maxDepth must be in [1, 16], was " + depth);
      }
      this.maxDepth = depth;
      return this;
    }

    /** Learning rate (shrinkage); default 0.1. */
    public Builder eta(double eta) {
      if (!(eta > 0 && eta <= 1)) {
        throw new IllegalArgumentException("eta must be in (0, 1], was " + eta);
      }
      this.eta = eta;
      return this;
    }

    /** Minimum hessian (row count, for squared error) in a leaf; default 1. */
    public Builder minChildWeight(double weight) {
      if (!(weight >= 0) || Double.isInfinite(weight)) {
        throw new IllegalArgumentException("minChildWeight must be finite and >= 0, was " + weight);
      }
      this.minChildWeight = weight;
      return this;
    }

    /** Seed of the held-out split and of xgboost; default 0. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** xgboost's threads; default 1, which makes training deterministic. */
    public Builder threads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be >= 1, was " + threads);
      }
      this.threads = threads;
      return this;
    }

    /** The fraction of rows held out to measure {@link FitQuality}; 0 to train on all; default 0.2. */
    public Builder heldOutFraction(double fraction) {
      if (!(fraction >= 0 && fraction < 1)) {
        throw new IllegalArgumentException("heldOutFraction must be in [0, 1), was " + fraction);
      }
      this.heldOutFraction = fraction;
      return this;
    }

    /** The trainer. */
    public XgboostSurrogate build() {
      return new XgboostSurrogate(this);
    }
  }
}
