package io.infermark.examples;

import io.infermark.attribution.change.ChangeDecomposition;
import io.infermark.attribution.change.ComponentTable;
import io.infermark.attribution.change.PercentileChange;
import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.attribution.phase.PhaseDecomposition;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.Fault;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;

/**
 * Example 05, why P99 moved: two runs of the same schedule, the second against a server that holds the
 * response headers of {@value #SLOW_REQUESTS} requests back {@value #HELD_BACK_MS} ms. P99 E2E jumps; which
 * part of the requests' time accounts for it?
 *
 * <p>Each request's E2E splits exactly into phases (connect, request write, waiting for the first byte, first
 * byte to first token, decode: {@code PhaseDecomposition}). {@code ChangeDecomposition} then splits the change
 * of P99 between the runs over those phases by Shapley values, pairing each request of run B with the request
 * at the same schedule position in run A. The contributions add up to the change exactly and, unlike
 * substituting one phase at a time, do not depend on the order. Here "waiting" (the time to first byte) takes
 * nearly all of the change. (Against the engine profile, where the tokens are generated while the headers
 * wait and then arrive all at once, decode gets a negative share: {@code ExplainTail} shows that case.)
 *
 * <p>Run it with {@code java -cp examples/target/infermark-quickstart.jar io.infermark.examples.E05WhyP99Moved}
 * (a few seconds). {@code ExplainTail} is the long tour: surrogate models, drift, a sweep's knee.
 */
public final class E05WhyP99Moved {

  static final int REQUESTS = 100;
  static final int WARMUP = 10;
  static final int SLOW_REQUESTS = 5;
  static final int HELD_BACK_MS = 1000;

  private E05WhyP99Moved() {}

  /** What the example found, for its test. */
  record Result(RunResult runA, RunResult runB, PercentileChange change) {}

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
    SimulatorConfig healthy = SimulatorConfig.builder()
        .timeToFirstToken(Duration.ofMillis(20)).interTokenInterval(Duration.ofMillis(5)).seed(5).build();
    // The simulator numbers requests from 0 as they arrive, warmup included: slow down 5 measured ones.
    long[] slow = new long[SLOW_REQUESTS];
    for (int i = 0; i < SLOW_REQUESTS; i++) {
      slow[i] = WARMUP + 10 + 20L * i;
    }
    SimulatorConfig degraded = healthy.toBuilder()
        .faultOnRequests(Fault.slowHeaders(Duration.ofMillis(HELD_BACK_MS)), slow).build();

    RunResult runA = run(healthy);
    RunResult runB = run(degraded);

    out.println("Run B, where the time went (service time; waiting = time to first byte):");
    out.println(PhaseDecomposition.of(runB, LatencyBasis.SERVICE_TIME).table(0.95, 0.99));

    // Pair requests by schedule position: request #k of B is compared with request #k of A.
    Function<RequestRecord, String> position = r -> "#" + r.index();
    PercentileChange change = ChangeDecomposition.builder().percentile(0.99).build().decompose(
        ComponentTable.phases(runA.records(), LatencyBasis.SERVICE_TIME, position),
        ComponentTable.phases(runB.records(), LatencyBasis.SERVICE_TIME, position));
    out.printf(Locale.ROOT, "Why did P99 E2E move? %.1f ms -> %.1f ms (%+.1f ms), Shapley split over phases:%n",
        change.statisticA(), change.statisticB(), change.change());
    for (String phase : change.ranking()) {
      out.printf(Locale.ROOT, "  %-27s %+9.1f ms%n", phase, change.contribution(phase));
    }
    out.printf(Locale.ROOT, "  (they add up to the change within %.1e ms; one phase at a time, the answer would depend"
        + " on the order by up to %.1f ms)%n", change.efficiencyGap(), change.orderDependence());
    if (runA.clientHealth().isWarning() || runB.clientHealth().isWarning()) {
      out.printf(Locale.ROOT, "WARNING: the client did not keep up; differences below %.1f ms are its noise%n",
          Math.max(runA.clientHealth().floorMillis(), runB.clientHealth().floorMillis()));
    }
    return new Result(runA, runB, change);
  }

  private static RunResult run(SimulatorConfig config) {
    try (Simulator sim = Simulator.start(config);
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()).build()) {
      return Benchmark.target(target)
          .prompts(Prompt.user("Where is my parcel?"))
          .params(GenerationParams.builder().maxTokens(16).ignoreEos(true).build())
          .load(LoadProfile.concurrency(8).requests(REQUESTS).warmupRequests(WARMUP))
          .run();
    }
  }
}
