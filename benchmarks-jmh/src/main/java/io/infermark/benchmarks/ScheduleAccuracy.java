package io.infermark.benchmarks;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.Locale;

/**
 * How well the open-loop scheduler keeps its schedule: runs constant-rate open loops against the
 * in-JVM simulator set to near-zero cost (no time to first token, one output token) and prints, per
 * rate, the achieved rate's error against the requested one and the send lag percentiles (actual
 * send minus intended send) from the run's {@link ScheduleStats}.
 *
 * <p>Run: {@code java -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.ScheduleAccuracy
 * [seconds per rate = 10] [rates = 100,1000,5000] [transport = netty|okhttp] [server base URL]}. With a base URL
 * it sends to a simulator already running in its own JVM, started with the same settings
 * ({@code java -jar testkit/target/infermark-simulator.jar --port 8130 --profile fixed --ttft-ms 0 --itl-ms 0
 * --output-tokens 1}), so the simulator's threads, allocation and GC pauses are not the client's. A measurement,
 * not a test: the numbers depend on the machine and on everything else it runs (the client and the simulator
 * share its cores).
 */
public final class ScheduleAccuracy {

  private ScheduleAccuracy() {}

  /** Runs the measurement and prints one line per rate. */
  public static void main(String[] args) {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    String[] rates = (args.length > 1 ? args[1] : "100,1000,5000").split(",");
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ZERO)
        .interTokenInterval(Duration.ZERO).defaultOutputTokens(1).build();
    String transport = args.length > 2 ? args[2] : "netty";
    String external = args.length > 3 ? args[3] : null;
    try (Simulator sim = external == null ? Simulator.start(config) : null;
        OpenAiTarget target = Transports.apply(OpenAiTarget.chat((external == null ? sim.baseUrl() : external)
            + "/v1", config.model()), transport).build()) {
      Benchmark base = Benchmark.target(target).prompts(Prompt.user("Are we on time?"))
          .params(GenerationParams.builder().maxTokens(1).build());
      // Warm the JIT, the connection pool and the simulator before measuring.
      base.load(LoadProfile.constantRate(1000).duration(Duration.ofSeconds(3))).run();
      RunResult last = null;
      for (String r : rates) {
        double rate = Double.parseDouble(r.strip());
        RunResult run = base.load(LoadProfile.constantRate(rate).duration(Duration.ofSeconds(seconds))
            .warmup(Duration.ofSeconds(1))).run();
        ScheduleStats s = run.schedule();
        System.out.printf(Locale.ROOT, "rate %6.0f/s: achieved %9.3f/s (error %+.3f %%), %d sent, %d not sent, "
                + "%d failed; lag p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms%n",
            rate, s.achievedRate(), (s.achievedRate() - rate) / rate * 100, s.sent(), s.notSent(), run.failureCount(),
            s.lagP50Nanos() / 1e6, s.lagP99Nanos() / 1e6, s.lagP999Nanos() / 1e6, s.lagMaxNanos() / 1e6);
        java.util.Map<String, Long> failures = new java.util.TreeMap<>();
        run.measured().stream().filter(x -> !x.succeeded()).forEach(x ->
            failures.merge(x.failure().orElseThrow().category().toString(), 1L, Long::sum));
        if (!failures.isEmpty()) {
          System.out.println("  failures by category: " + failures);
        }
        System.out.println("  client health: " + run.clientHealth());
        last = run;
      }
      if (last != null) {
        System.out.println("environment: " + last.environment());
      }
    }
  }
}
