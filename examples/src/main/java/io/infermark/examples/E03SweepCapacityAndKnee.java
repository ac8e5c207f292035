package io.infermark.examples;

import io.infermark.attribution.knee.Kneedle;
import io.infermark.attribution.knee.SlopeThreshold;
import io.infermark.attribution.knee.SweepKnees;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.sweep.CapacityResult;
import io.infermark.core.sweep.CapacitySearch;
import io.infermark.core.sweep.RecordPercentiles;
import io.infermark.core.sweep.Sweep;
import io.infermark.core.sweep.SweepPoint;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Example 03, sweep, SLO capacity and knee: how much load a server takes before latency climbs.
 *
 * <p>The server is the simulator with fixed timing and a hard limit: {@value #SERVER_SLOTS} requests at once,
 * each taking {@value #TTFT_MS} ms to its first token and {@value #ITL_MS} ms per further token, later ones
 * queue. That serves at most {@code slots / service time} requests per second (about 84/s here), so the
 * latency curve has a knee the example can find three ways:
 *
 * <ol>
 *   <li>a rate <b>sweep</b> ({@code Sweep.rates}): one open-loop run per rate, its throughput and P99 TTFT;
 *   <li>the <b>knee</b> of the P99 TTFT curve ({@code SweepKnees}: Kneedle and a slope rule);
 *   <li>the <b>SLO capacity</b> ({@code CapacitySearch}): the highest rate whose P99 TTFT stays within
 *       {@value #SLO_TTFT_MS} ms, found by bracketing and interpolation in a handful of runs.
 * </ol>
 *
 * <p>Run it with
 * {@code java -cp examples/target/infermark-quickstart.jar io.infermark.examples.E03SweepCapacityAndKnee}
 * (about 10 s).
 */
public final class E03SweepCapacityAndKnee {

  static final int SERVER_SLOTS = 8;
  static final int TTFT_MS = 20;
  static final int ITL_MS = 5;
  static final int OUTPUT_TOKENS = 16;
  static final double[] RATES = {20, 40, 60, 80, 100, 120};
  static final double SECONDS_PER_LEVEL = 0.6;
  static final double SLO_TTFT_MS = 100;
  static final int WARMUP = 8;
  static final double MIN_RATE = 10;
  static final double MAX_RATE = 400;
  static final int MAX_RUNS = 6;

  private E03SweepCapacityAndKnee() {}

  /** What the example found, for its test. */
  record Result(List<SweepPoint<Double>> sweep, SweepKnees knees, CapacityResult capacity) {}

  /** Requests of a capacity probe at {@code rate}: about half a second of arrivals, at least 15. */
  static int capacityRequests(double rate) {
    return (int) Math.max(15, Math.round(rate * 0.5));
  }

  /** Runs the example. */
  public static void main(String[] args) {
    quietSimulator();
    run(System.out);
  }

  /** The simulator logs each start and stop at INFO; keep the output to what the example teaches. */
  static void quietSimulator() {
    if (System.getProperty(ExplainTail.SIMULATOR_LOG_LEVEL) == null) {
      System.setProperty(ExplainTail.SIMULATOR_LOG_LEVEL, "warn");
    }
  }

  static Result run(PrintStream out) {
    SimulatorConfig config = SimulatorConfig.builder()
        .timeToFirstToken(Duration.ofMillis(TTFT_MS)).interTokenInterval(Duration.ofMillis(ITL_MS))
        .maxConcurrency(SERVER_SLOTS).seed(3).build();
    try (Simulator sim = Simulator.start(config);
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()).build()) {
      Benchmark base = Benchmark.target(target)
          .prompts(Prompt.user("Summarise the last incident report."))
          .params(GenerationParams.builder().maxTokens(OUTPUT_TOKENS).ignoreEos(true).build());

      // 1. One open-loop run per rate, each sending rate x SECONDS_PER_LEVEL requests on a Poisson schedule
      //    (after a few warmup requests, so class loading and JIT compilation do not land in the first level).
      List<SweepPoint<Double>> sweep = Sweep.rates(RATES).run(rate -> base.load(LoadProfile.poisson(rate)
          .requests((int) Math.round(rate * SECONDS_PER_LEVEL)).warmupRequests(WARMUP).seed(7)).run());
      out.println("  offered req/s | requests | achieved req/s | P99 TTFT ms | client");
      for (SweepPoint<Double> p : sweep) {
        RunSummary s = RunSummary.of(p.result());
        out.printf(Locale.ROOT, "  %13.0f | %8d | %14.1f | %11.1f | %s%n", p.level(), s.requests().measured(),
            s.requestThroughputRps().orElse(Double.NaN), s.distribution(LatencyMetric.TTFT).p99().orElse(Double.NaN),
            s.clientHealth().verdict());
      }

      // 2. The knee of P99 TTFT against the achieved throughput (seed 002 §3.2: Δlatency / Δ measured QPS).
      //    Kneedle finds the point of maximum curvature (with six levels kneed's default sensitivity 1 often
      //    finds none; 0.5 does); the slope rule marks the first segment steeper than 2 ms of P99 TTFT per extra
      //    completed req/s, or where latency rose and throughput did not (past the server's capacity).
      SweepKnees knees = SweepKnees.ofSweep(sweep, LatencyMetric.TTFT, 0.99, Kneedle.latencyCurve().sensitivity(0.5),
          SlopeThreshold.of(2));
      out.println();
      out.println("Knee of the P99 TTFT curve against achieved req/s:");
      out.println("  Kneedle: " + knees.kneedleLabel().orElse("none found"));
      out.println("  Slope above 2 ms per achieved req/s: " + knees.slopeLabel()
          .map(l -> "reached at " + l + ", last acceptable level " + knees.lastAcceptableLabel().orElse("none"))
          .orElse("never"));
      knees.clientWarnings().forEach(w -> out.println("  WARNING client not trustworthy at " + w));

      // 3. The highest rate meeting the SLO "P99 TTFT <= 100 ms", from a few runs of about half a second each.
      //    A run this short sees only the start of a queue, so the capacity it finds is above what the server
      //    sustains for minutes: size the runs of a real search like the traffic the SLO is about.
      CapacityResult capacity = CapacitySearch
          .atMost(RecordPercentiles.of(RecordPercentiles::ttftSeconds, 0.99), SLO_TTFT_MS / 1000)
          .startRate(40).minRate(MIN_RATE).maxRate(MAX_RATE).tolerance(0.1).maxRuns(MAX_RUNS)
          .run(rate -> base.load(LoadProfile.poisson(rate).requests(capacityRequests(rate)).warmupRequests(WARMUP)
              .seed(11)).run());
      out.println();
      out.println("Capacity at P99 TTFT <= " + SLO_TTFT_MS + " ms: " + capacity);
      capacity.probes().forEach(p -> out.printf(Locale.ROOT, "  probe %6.1f req/s: P99 TTFT %6.1f ms, %s, client %s%n",
          p.rate(), p.value() * 1000, p.sloMet() ? "meets the SLO" : "misses it", p.result().clientHealth().verdict()));
      capacity.warnings().forEach(w -> out.println("  WARNING " + w));
      return new Result(sweep, knees, capacity);
    }
  }
}
