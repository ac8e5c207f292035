package io.infermark.benchmarks;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.testkit.simulator.ServerTimeline;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * How exactly the client sees tokens: runs a closed-loop benchmark against the simulator in the
 * same JVM and compares every token's client arrival time with the simulator's own write time
 * (one clock, so the difference is the delivery delay the client adds to TTFT and ITL). Also
 * reports how late the simulator itself wrote tokens against its schedule.
 *
 * <p>Run: {@code java -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.DeliveryAccuracy
 * [streams=16] [requests=800] [tokens=64]}; a measurement, not a test: the numbers depend on the
 * machine and on everything else it runs.
 */
public final class DeliveryAccuracy {

  private static final long TTFT_NANOS = 20_000_000L;
  private static final long INTERVAL_NANOS = 5_000_000L;

  private DeliveryAccuracy() {}

  /** Runs the measurement and prints one line per distribution. */
  public static void main(String[] args) {
    int streams = args.length > 0 ? Integer.parseInt(args[0]) : 16;
    int requests = args.length > 1 ? Integer.parseInt(args[1]) : 800;
    int tokens = args.length > 2 ? Integer.parseInt(args[2]) : 64;
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofNanos(TTFT_NANOS))
        .interTokenInterval(Duration.ofNanos(INTERVAL_NANOS)).build();
    try (Simulator sim = Simulator.start(config);
        OpenAiTarget target = Transports.apply(OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()),
            Transports.chosen()).build()) {
      RunResult run = Benchmark.target(target).prompts(Prompt.user("How late is each token?"))
          .params(GenerationParams.builder().maxTokens(tokens).ignoreEos(true).build())
          .load(LoadProfile.concurrency(streams).requests(requests).warmupRequests(streams)).run();

      int n = run.measured().size() * tokens;
      double[] first = new double[run.measured().size()];
      double[] later = new double[n - first.length];
      double[] serverLate = new double[n];
      int f = 0;
      int l = 0;
      int s = 0;
      long failures = 0;
      for (RequestRecord r : run.measured()) {
        if (!r.succeeded()) {
          failures++;
          continue;
        }
        ServerTimeline server = sim.timeline(r.requestId()).orElseThrow();
        long admitted = server.admissionNanos().orElseThrow();
        for (int k = 0; k < server.tokenCount(); k++) {
          serverLate[s++] = (server.tokenNanos(k) - (admitted + TTFT_NANOS + k * INTERVAL_NANOS)) / 1e6;
        }
        long sentAt = run.originNanos() + r.sendNanos();
        ChunkTimeline.Cursor c = r.chunks().cursor();
        int k = 0;
        while (c.next()) {
          if (c.kind().isTokenBearing()) {
            double delayMs = (sentAt + c.offsetNanos() - server.tokenNanos(k++)) / 1e6;
            if (k == 1) {
              first[f++] = delayMs;
            } else {
              later[l++] = delayMs;
            }
          }
        }
      }
      System.out.printf(Locale.ROOT, "%d streams, %d requests x %d tokens, %d failed; %s%n", streams, requests,
          tokens, failures, run.environment());
      print("client first-token delay (ms)", Arrays.copyOf(first, f));
      print("client later-token delay (ms)", Arrays.copyOf(later, l));
      print("simulator write lateness (ms)", Arrays.copyOf(serverLate, s));
    }
  }

  private static void print(String name, double[] values) {
    Arrays.sort(values);
    QuantileMethod q = QuantileMethod.LINEAR;
    System.out.printf(Locale.ROOT, "%-32s n=%-7d p50 %.3f  p90 %.3f  p99 %.3f  max %.3f%n", name, values.length,
        q.quantile(values, 0.5), q.quantile(values, 0.9), q.quantile(values, 0.99), values[values.length - 1]);
  }
}
