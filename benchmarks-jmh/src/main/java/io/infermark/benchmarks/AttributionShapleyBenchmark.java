package io.infermark.benchmarks;

import io.infermark.attribution.change.ChangeDecomposition;
import io.infermark.attribution.change.ComponentTable;
import io.infermark.attribution.change.PercentileChange;
import io.infermark.attribution.shapley.CoalitionGame;
import io.infermark.attribution.shapley.Shapley;
import io.infermark.attribution.shapley.ShapleyValues;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Why-did-P99-move on {@value #REQUESTS} paired requests over {@value #COMPONENTS} additive components:
 * the exact Shapley decomposition ({@code 2^12 = 4096} coalitions, each a P99 over every request; the
 * issue's target is under 2 s), and the two sampling estimators on the same game (256 antithetic
 * permutations, and Kernel SHAP from 2048 coalitions).
 *
 * <p>Run: {@code java -jar benchmarks-jmh/target/benchmarks.jar AttributionShapley -f 1 -wi 2 -i 3}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class AttributionShapleyBenchmark {

  static final int COMPONENTS = 12;
  static final int REQUESTS = 100_000;

  private ComponentTable runA;
  private ComponentTable runB;
  private ChangeDecomposition exact;
  private CoalitionGame game;

  @Setup(Level.Trial)
  public void setUp() {
    List<String> names = new ArrayList<>();
    for (int j = 0; j < COMPONENTS; j++) {
      names.add("phase" + j);
    }
    List<String> keys = new ArrayList<>(REQUESTS);
    for (int r = 0; r < REQUESTS; r++) {
      keys.add("line-" + r);
    }
    SplittableRandom random = new SplittableRandom(42);
    double[][] a = new double[REQUESTS][COMPONENTS];
    double[][] b = new double[REQUESTS][COMPONENTS];
    for (int r = 0; r < REQUESTS; r++) {
      for (int j = 0; j < COMPONENTS; j++) {
        double scale = 2 + 8 * j;
        double base = scale * Math.exp(0.5 * gaussian(random));
        a[r][j] = base * (random.nextDouble() < 0.005 ? 10 : 1);
        // Run B: phases 3 and 7 slower, phase 9 with a heavier tail, the rest re-drawn noise.
        double factor = j == 3 ? 1.3 : j == 7 ? 1.1 : 1;
        b[r][j] = base * factor * Math.exp(0.1 * gaussian(random)) * (random.nextDouble() < (j == 9 ? 0.02 : 0.005)
            ? 10 : 1);
      }
    }
    runA = ComponentTable.of(names, a, keys);
    runB = ComponentTable.of(names, b, keys);
    exact = ChangeDecomposition.builder().percentile(0.99).build();
    game = exact.game(runA, runB);
  }

  private static double gaussian(SplittableRandom random) {
    return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
  }

  /** The whole decomposition: pairing by key, 4096 coalitions in Gray-code order, exact Shapley. */
  @Benchmark
  public PercentileChange exactP99Decomposition() {
    return exact.decompose(runA, runB);
  }

  /** 256 permutations (128 antithetic pairs) walked on the same P99 game: 2 + 256 × 11 evaluations. */
  @Benchmark
  public ShapleyValues permutationP99() {
    return Shapley.permutation(game, 256, 7);
  }

  /** Kernel SHAP from 2048 sampled coalitions (1024 complementary pairs) of the same P99 game. */
  @Benchmark
  public ShapleyValues kernelP99() {
    return Shapley.kernel(game, 2048, 7);
  }
}
