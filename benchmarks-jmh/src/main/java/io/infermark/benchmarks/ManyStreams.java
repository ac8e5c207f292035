package io.infermark.benchmarks;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Holds many concurrent streams for a while and accounts for every request: a closed loop of
 * {@code streams} streams against a server started separately (the standalone simulator, so client
 * and server do not share one process's file descriptors), for {@code seconds} seconds. Prints the
 * records by outcome (every issued request must be exactly one record; a request still streaming at
 * the end is cancelled and recorded), output tokens/s, process CPU, heap and thread counts, and the
 * run's client health.
 *
 * <p>Run the simulator first, with enough sequences and slow enough tokens that streams stay open
 * (here 10,000 streams of 25 ms TTFT and 10 ms per token, 1,000 tokens each):
 * <pre>
 * java -jar testkit/target/infermark-simulator.jar --port 18000 --profile fixed --ttft-ms 25 --itl-ms 10 \
 *     --output-tokens 1000 --max-concurrency 20000
 * java -Xmx2g -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.ManyStreams \
 *     http://127.0.0.1:18000 10000 60 1000 [transport=netty|okhttp]
 * </pre>
 * A measurement, not a test: both processes share the machine.
 */
public final class ManyStreams {

  private ManyStreams() {}

  /** Runs the measurement and prints a summary. */
  public static void main(String[] args) {
    if (args.length < 1) {
      throw new IllegalArgumentException("usage: ManyStreams URL [streams=10000] [seconds=60] [tokens=1000] "
          + "[transport=netty|okhttp]");
    }
    String url = args[0];
    int streams = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 60;
    int tokens = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
    String transport = args.length > 4 ? args[4] : "netty";
    try (OpenAiTarget target = Transports.apply(OpenAiTarget.chat(url + "/v1", "infermark-sim"), transport)
        .connectTimeout(Duration.ofSeconds(30)).build()) {
      long cpu0 = processCpuNanos();
      long wall0 = System.nanoTime();
      RunResult run = Benchmark.target(target).prompts(Prompt.user("Keep the stream open."))
          .params(GenerationParams.builder().maxTokens(tokens).ignoreEos(true).build())
          .load(LoadProfile.concurrency(streams).duration(Duration.ofSeconds(seconds))
              .drainTimeout(Duration.ofSeconds(30)))
          .run();
      long wall = System.nanoTime() - wall0;
      long cpu = processCpuNanos() - cpu0;
      Map<ErrorCategory, Long> failed = new EnumMap<>(ErrorCategory.class);
      long ok = 0;
      long outputTokens = 0;
      for (RequestRecord r : run.records()) {
        if (r.succeeded()) {
          ok++;
        } else {
          failed.merge(r.failure().orElseThrow().category(), 1L, Long::sum);
        }
        outputTokens += r.chunks().tokenChunkCount();
      }
      long distinct = run.records().stream().mapToLong(RequestRecord::index).distinct().count();
      Runtime rt = Runtime.getRuntime();
      System.out.printf(Locale.ROOT, "%s, %d streams for %d s: %d records (%d distinct indices), %d succeeded, "
              + "failed %s%n", target.transport().name(), streams, seconds, run.records().size(), distinct, ok, failed);
      System.out.printf(Locale.ROOT, "streamed tokens %d (%.0f/s); process CPU %.1f s = %.2f us per streamed token; "
              + "heap used %d MiB; live threads %d%n", outputTokens, outputTokens / (wall / 1e9), cpu / 1e9,
          outputTokens == 0 ? 0 : cpu / 1e3 / outputTokens, (rt.totalMemory() - rt.freeMemory()) >> 20,
          ManagementFactory.getThreadMXBean().getThreadCount());
      System.out.println("client health: " + run.clientHealth());
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
