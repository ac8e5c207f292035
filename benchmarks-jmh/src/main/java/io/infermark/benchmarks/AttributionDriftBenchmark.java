package io.infermark.benchmarks;

import io.infermark.attribution.drift.Drift;
import io.infermark.attribution.drift.DriftReport;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one full drift comparison ({@link Drift#compare(double[], double[])}: quantile bins, PSI,
 * KL, JS, the KS test and three tail intervals per sample) of two lognormal latency samples of
 * {@code n} values each. Below 10,000 values per sample the KS p-value is exact, at and above
 * asymptotic, so 5,000 and 100,000 show both paths.
 *
 * <p>Run: {@code java -jar benchmarks-jmh/target/benchmarks.jar AttributionDrift}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class AttributionDriftBenchmark {

  @Param({"5000", "100000"})
  int n;

  private double[] baseline;
  private double[] current;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom rnd = new SplittableRandom(1);
    baseline = new double[n];
    current = new double[n];
    for (int i = 0; i < n; i++) {
      baseline[i] = 100 * Math.exp(0.5 * gaussian(rnd));
      current[i] = 110 * Math.exp(0.5 * gaussian(rnd));
    }
  }

  private static double gaussian(SplittableRandom rnd) {
    // Box–Muller; SplittableRandom has no nextGaussian on Java 17.
    return Math.sqrt(-2 * Math.log(1 - rnd.nextDouble())) * Math.cos(2 * Math.PI * rnd.nextDouble());
  }

  @Benchmark
  public DriftReport compare() {
    return Drift.compare(baseline, current);
  }
}
