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
import io.infermark.metrics.RunSummary;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.ServerTimeline;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How many streamed tokens per second infermark's client sustains, and at what CPU cost, against
 * the simulator in the same JVM; and how exactly it measures TTFT and ITL meanwhile.
 *
 * <p>For each concurrency level it runs a closed loop of {@code streams} streams for a fixed time
 * against a simulator with the given engine profile (default {@link EngineProfile#nearZeroCost()}:
 * 1 ms steps, so the server offers 1000 tokens/s per stream and the client is the bottleneck),
 * then prints: output tokens/s (infermark's own summary), CPU per token split between the
 * simulator, the JVM itself and the client, and the client's measurement error against the
 * simulator's ground truth on one clock: TTFT error (client first-token time minus the server's
 * first write) and ITL error (|client gap − server gap|), p50, p90, p99 and max; and the load
 * average before and after, since other processes on the machine take CPU from both sides.
 *
 * <p>CPU attribution: the process's CPU time (OS) is split by thread CPU time (JMX) into the
 * simulator (its long-lived {@code infermark-sim-*} threads: engine, writer, HTTP selector and,
 * on Java 17, the handler pool), the JVM (JIT compiler, GC and VM threads, read from
 * {@code /proc/self/task}, since JMX does not list them; Linux only, 10 ms resolution) and the client, which is
 * the rest: request threads (which end with their request, so their CPU cannot be read per
 * thread), virtual-thread carriers and pollers, OkHttp's threads and the run's own threads. On
 * Java 21+ the simulator's short request-parsing tasks run on virtual threads and count as
 * client; with an engine profile that is one short task per request.
 *
 * <p>Run: {@code java -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.ClientCapacity
 * [streams=64,256,1024] [seconds=10] [tokens=256] [profile=near-zero-cost] [warmupSeconds=max(5,seconds/2)]
 * [stepOverheadMillis]}. The profile may also be {@code fixed} or {@code fixed:TTFT_MS:ITL_MS} (default 25
 * and 10): the fixed-timing model, whose streams one clock thread writes. The last argument overrides an
 * engine profile's step overhead: near-zero-cost's 1 ms
 * offers 1000 tokens/s per stream, more than two cores can read at 256 streams, so the client runs
 * saturated and its measurement error is its queueing delay; a longer step (2.56 ms at 256 streams
 * offers 100,000 tokens/s) measures the error at a rate the client can sustain.
 * A measurement, not a test: client and server share the machine's cores, so numbers depend on it
 * and on whatever else runs.
 */
public final class ClientCapacity {

  private ClientCapacity() {}

  /**
   * Runs every level and prints one block per level.
   *
   * @param args levels, seconds, tokens, profile, warm-up seconds, step overhead (all optional)
   */
  public static void main(String[] args) {
    int[] levels = Arrays.stream((args.length > 0 ? args[0] : "64,256,1024").split(","))
        .mapToInt(Integer::parseInt).toArray();
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int tokens = args.length > 2 ? Integer.parseInt(args[2]) : 256;
    String name = args.length > 3 ? args[3] : "near-zero-cost";
    // "fixed:TTFT_MS:ITL_MS" (or "fixed", 25 ms and 10 ms): the fixed-timing model, no engine.
    double[] fixed = name.startsWith("fixed") ? fixedTiming(name) : null;
    EngineProfile profile = fixed != null ? null : EngineProfile.named(name);
    int warmup = args.length > 4 ? Integer.parseInt(args[4]) : Math.max(5, seconds / 2);
    if (args.length > 5 && profile != null) {
      profile = profile.toBuilder().stepOverheadMs(Double.parseDouble(args[5])).build();
    }
    int cores = Runtime.getRuntime().availableProcessors();
    System.out.printf(Locale.ROOT, "profile %s, %d s per level after %d s warm-up, %d tokens per request, %d cores, "
        + "Java %s%n", profile != null ? profile.name() : name, seconds, warmup, tokens, cores,
        System.getProperty("java.version"));
    for (int streams : levels) {
      SimulatorConfig config;
      double offered;
      if (profile != null) {
        config = SimulatorConfig.builder().engine(profile.toBuilder()
            .maxRunningSequences(Math.max(profile.maxRunningSequences(), streams)).build()).build();
        offered = streams * 1000.0 / profile.decodeStepMillis(streams, 0);
      } else {
        config = SimulatorConfig.builder().timeToFirstToken(Duration.ofNanos(Math.round(fixed[0] * 1e6)))
            .interTokenInterval(Duration.ofNanos(Math.round(fixed[1] * 1e6))).build();
        offered = streams * 1000.0 / fixed[1];
      }
      level(config, offered, streams, seconds, tokens, warmup);
    }
  }

  private static double[] fixedTiming(String name) {
    String[] p = name.split(":");
    if (p.length == 1) {
      return new double[] {25, 10};
    }
    if (p.length != 3) {
      throw new IllegalArgumentException("use fixed or fixed:TTFT_MS:ITL_MS, was " + name);
    }
    return new double[] {Double.parseDouble(p[1]), Double.parseDouble(p[2])};
  }

  private static void level(SimulatorConfig config, double offered, int streams, int seconds, int tokens,
      int warmup) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    try (Simulator sim = Simulator.start(config, Transports.simulatorProtocol(Transports.chosen()));
        OpenAiTarget target = Transports.apply(OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()),
            Transports.chosen()).build()) {
      Benchmark bench = Benchmark.target(target).prompts(Prompt.user("How fast can the client read?"))
          .params(GenerationParams.builder().maxTokens(tokens).ignoreEos(true).build());
      // Warm up (JIT, connections) off the clock.
      bench.load(LoadProfile.concurrency(streams).duration(Duration.ofSeconds(warmup))).run();

      String loadBefore = loadAverage();
      Map<Long, Long> before = cpuByThread(mx);
      long jvm0 = jvmThreadsCpuNanos();
      long processCpu0 = processCpuNanos();
      long wall0 = System.nanoTime();
      RunResult run = bench.load(LoadProfile.concurrency(streams).duration(Duration.ofSeconds(seconds))).run();
      long wall = System.nanoTime() - wall0;
      long processCpu = processCpuNanos() - processCpu0;
      long[] split = split(mx, before);
      split[1] = jvmThreadsCpuNanos() - jvm0;

      RunSummary summary = RunSummary.of(run);
      long tokensOut = summary.tokens().outputTokens();
      double tps = summary.outputTokenThroughputTps().orElse(0);
      System.out.printf(Locale.ROOT, "%n== %d streams: %d requests (%d failed), %d tokens, %.0f output tokens/s "
          + "(%.0f offered)%n", streams, run.measured().size(), run.failureCount(), tokensOut, tps, offered);
      System.out.printf(Locale.ROOT, "load average before %s, after %s%n", loadBefore, loadAverage());
      System.out.printf(Locale.ROOT, "CPU: process %.1f%% of %d cores; per token %.1f us total = simulator %.1f us"
          + " + JVM (JIT, GC) %.1f us + client %.1f us%n",
          100.0 * processCpu / wall / Runtime.getRuntime().availableProcessors(),
          Runtime.getRuntime().availableProcessors(), micros(processCpu, tokensOut), micros(split[0], tokensOut),
          micros(split[1], tokensOut), micros(processCpu - split[0] - split[1], tokensOut));
      errors(run, sim);
    }
  }

  private static double micros(long nanos, long tokens) {
    return tokens == 0 ? 0 : nanos / 1e3 / tokens;
  }

  private static void errors(RunResult run, Simulator sim) {
    int n = run.measured().size();
    double[] ttft = new double[n];
    double[] itl = new double[n * 16];
    int f = 0;
    int g = 0;
    for (RequestRecord r : run.measured()) {
      if (!r.succeeded()) {
        continue;
      }
      ServerTimeline server = sim.timeline(r.requestId()).orElse(null);
      if (server == null || server.tokenCount() == 0) {
        continue;
      }
      long sent = run.originNanos() + r.sendNanos();
      ttft[f++] = (sent + r.chunks().firstTokenOffsetNanos().getAsLong() - server.firstTokenNanos().getAsLong()) / 1e6;
      ChunkTimeline.TokenGaps gaps = r.chunks().gaps();
      for (int k = 1; k < server.tokenCount() && gaps.next(); k++) {
        if (g == itl.length) {
          itl = Arrays.copyOf(itl, itl.length * 2);
        }
        itl[g++] = Math.abs(gaps.gapNanos() - (server.tokenNanos(k) - server.tokenNanos(k - 1))) / 1e6;
      }
    }
    print("TTFT error, client - server first write (ms)", Arrays.copyOf(ttft, f));
    print("ITL error, |client gap - server gap| (ms)", Arrays.copyOf(itl, g));
  }

  private static void print(String name, double[] values) {
    if (values.length == 0) {
      System.out.println(name + ": no values");
      return;
    }
    Arrays.sort(values);
    QuantileMethod q = QuantileMethod.LINEAR;
    System.out.printf(Locale.ROOT, "%-46s n=%-8d p50 %.3f  p90 %.3f  p99 %.3f  max %.3f%n", name, values.length,
        q.quantile(values, 0.5), q.quantile(values, 0.9), q.quantile(values, 0.99), values[values.length - 1]);
  }

  static long processCpuNanos() {
    var os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime();
    }
    return 0;
  }

  static Map<Long, Long> cpuByThread(ThreadMXBean mx) {
    Map<Long, Long> cpu = new HashMap<>();
    for (long id : mx.getAllThreadIds()) {
      long t = mx.getThreadCpuTime(id);
      if (t >= 0) {
        cpu.put(id, t);
      }
    }
    return cpu;
  }

  /** The 1, 5 and 15 minute load averages, from /proc/loadavg (Linux), or "n/a". */
  static String loadAverage() {
    try {
      String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (java.io.IOException | RuntimeException e) {
      return "n/a";
    }
  }

  /**
   * CPU used so far by the JVM's own threads (JIT compilers, GC, VM thread), from
   * {@code /proc/self/task/<tid>/stat}; 0 where that does not exist.
   */
  static long jvmThreadsCpuNanos() {
    long ticks = 0;
    try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
      for (java.nio.file.Path task : (Iterable<java.nio.file.Path>) tasks::iterator) {
        String stat;
        try {
          stat = java.nio.file.Files.readString(task.resolve("stat"));
        } catch (java.io.IOException e) {
          continue; // the thread ended
        }
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        String comm = stat.substring(open + 1, close);
        if (comm.contains("CompilerThre") || comm.startsWith("GC Thread") || comm.startsWith("G1 ")
            || comm.equals("VM Thread")) {
          String[] f = stat.substring(close + 2).split(" ");
          ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      return 0;
    }
    return ticks * 10_000_000L; // USER_HZ is 100 on Linux
  }

  /** CPU used since {@code before} by the simulator's threads (long-lived platform threads). */
  static long[] split(ThreadMXBean mx, Map<Long, Long> before) {
    long sim = 0;
    long jvm = 0;
    for (var info : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (info == null) {
        continue;
      }
      long t = mx.getThreadCpuTime(info.getThreadId());
      if (t < 0) {
        continue;
      }
      long used = t - before.getOrDefault(info.getThreadId(), 0L);
      String name = info.getThreadName();
      if (name.startsWith("infermark-sim")) {
        sim += used;
      }
    }
    return new long[] {sim, jvm};
  }
}
