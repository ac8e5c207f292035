package io.infermark.benchmarks;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.GcPauses;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.load.UserRamp;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

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
 *
 * <p>With a sixth argument, {@code rampSeconds}, the streams join over that many seconds (a user ramp, so their
 * tokens arrive spread over each gap rather than in one burst) and then hold for {@code seconds}; requests sent
 * during the ramp and the first request length after it are warm-up, so the client's health is judged on the
 * steady state. {@code scripts/ten-thousand-streams.sh} runs 10,000 streams of one token per second this way in a
 * 1 GiB heap and ends with a {@code VERDICT} line: every record retained, the heap's peak within -Xmx, the longest
 * GC pause of the whole process (from the collectors' notifications, 1 ms resolution) within 10 ms, and the health
 * verdict with its error bound.
 */
public final class ManyStreams {

  private ManyStreams() {}

  /** Runs the measurement and prints a summary. */
  public static void main(String[] args) {
    if (args.length < 1) {
      throw new IllegalArgumentException("usage: ManyStreams URL [streams=10000] [seconds=60] [tokens=1000] "
          + "[transport=netty|okhttp] [rampSeconds]");
    }
    String url = args[0];
    int streams = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 60;
    int tokens = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
    String transport = args.length > 4 ? args[4] : "netty";
    int ramp = args.length > 5 ? Integer.parseInt(args[5]) : 0;
    long[] gc = listenToGcPauses(); // count, total ms, longest ms: the whole process, ramp included
    try (OpenAiTarget target = Transports.apply(OpenAiTarget.chat(url + "/v1", "infermark-sim"), transport)
        .connectTimeout(Duration.ofSeconds(30)).build()) {
      long cpu0 = processCpuNanos();
      long wall0 = System.nanoTime();
      RunResult run = Benchmark.target(target).prompts(Prompt.user("Keep the stream open."))
          .params(GenerationParams.builder().maxTokens(tokens).ignoreEos(true).build())
          .load(ramp == 0 ? LoadProfile.concurrency(streams).duration(Duration.ofSeconds(seconds))
              .drainTimeout(Duration.ofSeconds(30))
              : LoadProfile.users(UserRamp.startingAt(0).rampTo(streams, streams / (double) ramp)
                  .hold(Duration.ofSeconds(seconds))).warmup(Duration.ofSeconds(ramp + (long) tokens))
                  .drainTimeout(Duration.ofSeconds(2L * tokens + 30)))
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
      ClientHealth health = run.clientHealth();
      System.out.println("client health: " + health);
      long peak = heapPeakBytes();
      long max = rt.maxMemory();
      GcPauses measured = health.measurements().map(m -> m.gc()).orElse(GcPauses.NONE);
      System.out.printf(Locale.ROOT, "GC pauses (whole process, ramp included): %d, %d ms in all, longest %d ms; "
          + "in the measured part: %s; heap peak %d MiB of %d MiB (-Xmx); GC %s; load average %s%n", gc[0], gc[1],
          gc[2], measured, peak >> 20, max >> 20, collectors(), loadAverage());
      long measuredCount = run.measured().size();
      long maxIndex = run.records().stream().mapToLong(RequestRecord::index).max().orElse(-1);
      boolean everyRecord = distinct == run.records().size() && maxIndex + 1 == run.records().size();
      System.out.printf(Locale.ROOT, "VERDICT streams=%d records=%d measured=%d every_record_kept=%s "
              + "all_succeeded=%s heap_peak_mib=%d heap_within_xmx=%s longest_gc_pause_ms=%d "
              + "gc_pauses_within_10ms=%s verdict=%s error_bound_ms=%.2f%n", streams, run.records().size(),
          measuredCount, everyRecord, failed.isEmpty(), peak >> 20, peak <= max, gc[2], gc[2] <= 10,
          health.verdict(), health.floorMillis());
    }
  }

  /** Listens to every collector's notifications; the array holds pauses counted, total ms, longest ms. */
  private static long[] listenToGcPauses() {
    long[] gc = new long[3];
    for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (bean instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener((n, handback) -> {
          if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
          }
          GarbageCollectionNotificationInfo info =
              GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
          String name = info.getGcName().toLowerCase(Locale.ROOT);
          if (name.contains("cycles") || name.contains("concurrent")
              || info.getGcAction().toLowerCase(Locale.ROOT).contains("concurrent")) {
            return; // concurrent work, not a pause (their pauses come under "... Pauses")
          }
          synchronized (gc) {
            gc[0]++;
            gc[1] += info.getGcInfo().getDuration();
            gc[2] = Math.max(gc[2], info.getGcInfo().getDuration());
          }
        }, null, null);
      }
    }
    return gc;
  }

  /** The sum of the heap pools' peaks since the JVM started: an upper bound of the heap's peak use. */
  private static long heapPeakBytes() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  private static String collectors() {
    StringBuilder names = new StringBuilder();
    for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
      names.append(names.length() == 0 ? "" : ", ").append(bean.getName());
    }
    return names.toString();
  }

  private static String loadAverage() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "n/a";
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
