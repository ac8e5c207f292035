package io.infermark.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.attribution.tree.TreeEnsemble;
import io.infermark.attribution.tree.TreeShap;
import io.infermark.attribution.tree.TreeShapValues;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import ml.dmlc.xgboost4j.java.Booster;
import ml.dmlc.xgboost4j.java.DMatrix;
import ml.dmlc.xgboost4j.java.XGBoost;
import ml.dmlc.xgboost4j.java.XGBoostError;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Path-dependent TreeSHAP of {@value #ROWS} rows of {@value #FEATURES} features under an xgboost model
 * of {@value #TREES} trees of depth {@value #DEPTH} (target: under 10 s), against xgboost's own
 * {@code predictContrib} on the same model and rows, one thread each and two threads each, so their
 * ratio can be reported. {@link #treeShapAlgorithm2On10000Rows()} runs Algorithm 2 (EXTEND/UNWIND) on
 * a tenth of the rows, to show what the per-leaf tables buy.
 *
 * <p>The model is trained in setup (xgboost {@code hist}, eta 0.1, seed 0) on the same rows, whose
 * label mixes products and sines of the features so the trees grow to full depth. Run:
 * {@code java -jar benchmarks-jmh/target/benchmarks.jar AttributionTreeShap -f 1 -wi 1 -i 3}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(1)
public class AttributionTreeShapBenchmark {

  static final int ROWS = 100_000;
  static final int FEATURES = 10;
  static final int TREES = 100;
  static final int DEPTH = 6;

  private double[][] rows;
  private double[][] tenth;
  private DMatrix matrix;
  private Booster oneThread;
  private Booster twoThreads;
  private TreeShap shap;
  private TreeShap shapTwoThreads;
  private TreeShap algorithm2;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    SplittableRandom random = new SplittableRandom(1);
    float[] x = new float[ROWS * FEATURES];
    float[] y = new float[ROWS];
    rows = new double[ROWS][FEATURES];
    for (int i = 0; i < ROWS; i++) {
      for (int f = 0; f < FEATURES; f++) {
        x[i * FEATURES + f] = (float) random.nextGaussian();
        rows[i][f] = x[i * FEATURES + f];
      }
      double label = 0;
      for (int f = 0; f < FEATURES; f++) {
        label += Math.sin((f + 1) * rows[i][f]) * rows[i][(f + 3) % FEATURES];
      }
      y[i] = (float) (label + 0.1 * random.nextGaussian());
    }
    tenth = java.util.Arrays.copyOf(rows, ROWS / 10);
    matrix = new DMatrix(x, ROWS, FEATURES, Float.NaN);
    matrix.setLabel(y);
    Map<String, Object> params = new HashMap<>();
    params.put("objective", "reg:squarederror");
    params.put("max_depth", DEPTH);
    params.put("eta", 0.1);
    params.put("seed", 0);
    params.put("nthread", 2);
    params.put("verbosity", 0);
    Booster trained = XGBoost.train(matrix, params, TREES, new HashMap<>(), null, null);
    byte[] bytes = trained.toByteArray("json");
    TreeEnsemble model = toEnsemble(trained, bytes);
    trained.dispose();
    oneThread = XGBoost.loadModel(bytes);
    oneThread.setParam("nthread", 1);
    twoThreads = XGBoost.loadModel(bytes);
    twoThreads.setParam("nthread", 2);
    shap = TreeShap.pathDependent(model);
    shapTwoThreads = shap.withThreads(2);
    algorithm2 = TreeShap.pathDependentAlgorithm2(model);
    // The two must agree before their speeds are worth comparing.
    float[][] theirs = oneThread.predictContrib(matrix, 0);
    TreeShapValues ours = shap.explain(java.util.Arrays.copyOf(rows, 1000));
    for (int i = 0; i < 1000; i++) {
      for (int f = 0; f < FEATURES; f++) {
        if (Math.abs(ours.value(i, f) - theirs[i][f]) > 1e-3) {
          throw new IllegalStateException("TreeSHAP and predictContrib disagree at row " + i + " feature " + f
              + ": " + ours.value(i, f) + " vs " + theirs[i][f]);
        }
      }
    }
    System.out.printf("%nmodel: %s%n", model);
  }

  private static TreeEnsemble toEnsemble(Booster booster, byte[] json) throws Exception {
    JsonNode learner = new ObjectMapper().readTree(json).path("learner");
    String base = learner.path("learner_model_param").path("base_score").asText().replace("[", "").replace("]", "");
    List<String> names = new ArrayList<>();
    for (int f = 0; f < FEATURES; f++) {
      names.add("f" + f);
    }
    return io.infermark.attribution.tree.XgboostJsonDump.parse(
        List.of(booster.getModelDump((String) null, true, "json")), names, Float.parseFloat(base));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    oneThread.dispose();
    twoThreads.dispose();
    matrix.dispose();
  }

  @Benchmark
  public TreeShapValues treeShapPathDependent() {
    return shap.explain(rows);
  }

  @Benchmark
  public TreeShapValues treeShapPathDependentTwoThreads() {
    return shapTwoThreads.explain(rows);
  }

  @Benchmark
  public void xgboostPredictContrib(Blackhole bh) throws XGBoostError {
    bh.consume(oneThread.predictContrib(matrix, 0));
  }

  @Benchmark
  public void xgboostPredictContribTwoThreads(Blackhole bh) throws XGBoostError {
    bh.consume(twoThreads.predictContrib(matrix, 0));
  }

  @Benchmark
  public TreeShapValues treeShapAlgorithm2On10000Rows() {
    return algorithm2.explain(tenth);
  }
}
