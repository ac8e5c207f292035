package io.infermark.benchmarks;

import io.infermark.attribution.knee.Kneedle;
import io.infermark.attribution.knee.KneedleResult;
import io.infermark.attribution.pareto.ParetoFront;
import io.infermark.attribution.pareto.ParetoPoint;
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
 * The cost of the sweep analyses: the Pareto front and hypervolume of 100,000 configurations, and
 * Kneedle (online, so the whole curve is walked) on a 1000-point curve.
 *
 * <p>Run: {@code java -jar benchmarks-jmh/target/benchmarks.jar AttributionPareto}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class AttributionParetoBenchmark {

  private List<ParetoPoint<Integer>> points;
  private double[] x;
  private double[] y;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom rnd = new SplittableRandom(42);
    points = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      double t = rnd.nextDouble() * 100;
      points.add(new ParetoPoint<>(i, t, 20 + 5 * t + 200 * rnd.nextDouble()));
    }
    x = new double[1000];
    y = new double[1000];
    for (int i = 0; i < 1000; i++) {
      x[i] = i + 1;
      y[i] = 50 + 1000.0 / (1001 - x[i]) + rnd.nextDouble(); // latency rising towards saturation
    }
  }

  @Benchmark
  public double paretoFrontAndHypervolumeOf100k() {
    return ParetoFront.of(points).hypervolume();
  }

  @Benchmark
  public KneedleResult kneedleOnlineOn1000Points() {
    return Kneedle.latencyCurve().online(true).locate(x, y);
  }
}
