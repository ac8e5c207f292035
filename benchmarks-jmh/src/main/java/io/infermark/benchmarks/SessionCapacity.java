package io.infermark.benchmarks;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.session.SessionWorkload;
import io.infermark.core.session.SyntheticSessions;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.ExactLength;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import io.infermark.metrics.RunSummary;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Client CPU per streamed token of session workloads against independent requests with the same token counts:
 * {@code sessions} concurrent sessions of {@code turns} turns (each turn's context the real history, so the
 * client builds and counts a growing prompt per call, and every step runs on the session thread), then a closed
 * loop of as many streams sending single requests whose inputs have the lengths the session calls had (turn k's
 * context: k × (user + output) + user tokens) and the same output length. Both against the fixed-timing simulator
 * in this JVM; client CPU = process CPU − the simulator's threads − the JVM's (JIT, GC), as in
 * {@link ClientCapacity}. Prints both and their ratio, and the independent requests again capturing their
 * text as a session must (its next turn sends the reply), to tell the cost of text capture from the sessions'.
 *
 * <p>Run: {@code java -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.SessionCapacity
 * [sessions=1000] [turns=5] [rounds=2] [userTokens=32] [outputTokens=32] [itlMillis=50]}. A measurement, not a
 * test: client and server share the machine's cores.
 */
public final class SessionCapacity {

  private SessionCapacity() {}

  /**
   * Runs the session workload and the independent requests, each after a warm-up, and prints both.
   *
   * @param args sessions, turns, rounds, user tokens, output tokens, inter-token interval in ms (all optional)
   */
  public static void main(String[] args) {
    int sessions = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int turns = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    int user = args.length > 3 ? Integer.parseInt(args[3]) : 32;
    int output = args.length > 4 ? Integer.parseInt(args[4]) : 32;
    double itl = args.length > 5 ? Double.parseDouble(args[5]) : 50;
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(25))
        .interTokenInterval(Duration.ofNanos(Math.round(itl * 1e6))).unlimitedConcurrency().build();
    System.out.printf(Locale.ROOT, "%d concurrent sessions x %d turns, %d rounds, %d user + %d output tokens per turn,"
        + " ITL %.0f ms, %d cores, Java %s%n", sessions, turns, rounds, user, output, itl,
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
    try (Simulator sim = Simulator.start(config, Transports.simulatorProtocol(Transports.chosen()));
        OpenAiTarget target = Transports.apply(OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()),
            Transports.chosen()).build()) {
      GenerationParams params = GenerationParams.builder().maxTokens(output).ignoreEos(true).build();
      Benchmark base = Benchmark.target(target).params(params);
      long calls = (long) sessions * turns * rounds;
      // warm-up of both paths, off the clock
      measure("warm-up sessions", base.workload(sessionWorkload(Math.min(sessions, 200), turns, user, output))
          .load(LoadProfile.concurrency(Math.min(sessions, 200)).duration(Duration.ofMinutes(10))));
      measure("warm-up requests", base.workload(independent(turns, user, output))
          .load(LoadProfile.concurrency(Math.min(sessions, 200)).requests(Math.min((int) calls, 1000))));
      double perTokenSessions = measure("sessions", base.workload(sessionWorkload((long) sessions * rounds, turns,
          user, output)).load(LoadProfile.concurrency(sessions).duration(Duration.ofMinutes(30))));
      double perTokenRequests = measure("independent requests", base.workload(independent(turns, user, output))
          .load(LoadProfile.concurrency(sessions).requests((int) calls)));
      // sessions capture every reply's text (the next turn sends it); the same requests capturing text too
      double perTokenCapturing = measure("independent + text", base.workload(independent(turns, user, output))
          .captureText(true).load(LoadProfile.concurrency(sessions).requests((int) calls)));
      System.out.printf(Locale.ROOT, "client CPU per streamed token: sessions / independent requests = %.2f"
          + " (/ independent requests capturing text: %.2f)%n", perTokenSessions / perTokenRequests,
          perTokenSessions / perTokenCapturing);
    }
  }

  private static SessionWorkload sessionWorkload(long count, int turns, int user, int output) {
    return SessionWorkload.builder(SyntheticSessions.builder().turns(turns).userTokens(user).maxTokens(output)
        .build()).maxSessions(count).build();
  }

  /** Request {@code i} has turn {@code i mod turns}'s context length and asks for the same output. */
  private static Workload independent(int turns, int user, int output) {
    TokenCounter counter = TokenCounter.estimate();
    return (index, intended, defaults) -> {
      int k = (int) (index % turns);
      return new RequestSpec(ExactLength.prompt(counter, k * (user + output) + user, index), defaults);
    };
  }

  /** Runs, prints, and returns the client's CPU per streamed token in microseconds. */
  private static double measure(String name, Benchmark bench) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    String loadBefore = ClientCapacity.loadAverage();
    Map<Long, Long> before = ClientCapacity.cpuByThread(mx);
    long jvm0 = ClientCapacity.jvmThreadsCpuNanos();
    long cpu0 = ClientCapacity.processCpuNanos();
    long wall0 = System.nanoTime();
    RunResult run = bench.run();
    long wall = System.nanoTime() - wall0;
    long cpu = ClientCapacity.processCpuNanos() - cpu0;
    long simulator = ClientCapacity.split(mx, before)[0];
    long jvm = ClientCapacity.jvmThreadsCpuNanos() - jvm0;
    RunSummary summary = RunSummary.of(run);
    long tokens = summary.tokens().outputTokens();
    double client = tokens == 0 ? 0 : (cpu - simulator - jvm) / 1e3 / tokens;
    System.out.printf(Locale.ROOT, "%-22s %6d calls (%d failed), %8d tokens in %.1f s; load %s -> %s; CPU per token "
        + "%.1f us = simulator %.1f + JVM %.1f + client %.1f us%n", name, run.records().size(), run.failureCount(),
        tokens, wall / 1e9, loadBefore, ClientCapacity.loadAverage(), tokens == 0 ? 0 : cpu / 1e3 / tokens,
        tokens == 0 ? 0 : simulator / 1e3 / tokens, tokens == 0 ? 0 : jvm / 1e3 / tokens, client);
    return client;
  }
}
