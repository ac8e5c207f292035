package io.infermark.benchmarks;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.health.ClientMeasurements;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.journal.RecordsJournal;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * A long closed-loop run with every record retained and journalled, as a night-long benchmark makes them:
 * does the client pause (GC) while it measures, and how much heap does each retained record cost?
 *
 * <p>It runs {@code streams} closed-loop streams for {@code minutes} against an OpenAI-compatible server
 * (best a simulator in its own JVM: {@code java -cp benchmarks.jar io.infermark.testkit.simulator.SimulatorMain
 * --port 18000 --profile fixed --ttft-ms 20 --itl-ms 10 --output-tokens 64 --max-concurrency 1024}), after a
 * warm-up of {@code 4 × streams} requests, with a records journal in a temporary file. It prints the run's own
 * health figures (the GC pauses the JVM reported and the hiccup meter's, over the measured span) and the
 * retained heap per record: heap used after a full collection with only the records held, minus heap used
 * with nothing of the run held, divided by the records.
 *
 * <p>Run: {@code java -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.LongRun
 * http://127.0.0.1:18000 256 10 [output-tokens]}; it ends with one {@code RESULT key=value ...} line.
 */
public final class LongRun {

  private LongRun() {}

  /**
   * Runs the measurement.
   *
   * @param args base URL, streams, minutes, and optionally output tokens per request (default 64)
   * @throws Exception if the run cannot be made
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: LongRun BASE_URL STREAMS MINUTES [OUTPUT_TOKENS]");
      System.exit(2);
    }
    String url = args[0];
    int streams = Integer.parseInt(args[1]);
    double minutes = Double.parseDouble(args[2]);
    int tokens = args.length > 3 ? Integer.parseInt(args[3]) : 64;
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long before = usedAfterGc(memory);
    Path journalFile = Files.createTempFile("longrun", RecordsJournal.SUFFIX);
    RunResult result;
    try (OpenAiTarget target = OpenAiTarget.chat(url + "/v1", "infermark-sim").build();
        RecordsJournal journal = RecordsJournal.open(journalFile)) {
      result = Benchmark.target(target).prompts(Prompt.user("Write a story about a lighthouse keeper."))
          .params(GenerationParams.builder().maxTokens(tokens).ignoreEos(true).build())
          .load(LoadProfile.concurrency(streams).duration(Duration.ofMillis(Math.round(minutes * 60_000)))
              .warmupRequests(4 * streams))
          .listener(journal).run();
    }
    int records = result.records().size();
    double seconds = result.durationNanos() / 1e9;
    ClientMeasurements m = result.clientHealth().measurements().orElse(null);
    String verdict = result.clientHealth().verdict() + " " + result.clientHealth().reasons();
    String verdictName = result.clientHealth().verdict().name();
    // The retained records alone: heap with only them held, minus heap with nothing of the run held, so the
    // process's fixed costs (buffer pools, the hiccup meter's histograms, loaded classes' objects) do not count.
    java.util.List<io.infermark.core.capture.RequestRecord> kept = result.records();
    result = null;
    long with = usedAfterGc(memory);
    int keptSize = kept.size();
    kept = null;
    long without = usedAfterGc(memory);
    double perRecord = keptSize == 0 ? 0 : (with - without) / (double) keptSize;
    System.out.printf(Locale.ROOT, "records %d in %.1f s (%.0f/s), journal %d MiB%n", records, seconds,
        records / seconds, Files.size(journalFile) >> 20);
    System.out.printf(Locale.ROOT, "retained records %.1f MiB: %.0f bytes per record (heap before the run %.1f MiB)%n",
        (with - without) / 1048576.0, perRecord, before / 1048576.0);
    System.out.println("client health: " + verdict);
    if (m != null) {
      System.out.printf(Locale.ROOT, "GC pauses: %d, total %.1f ms, longest %.2f ms; hiccup p99 %.2f ms, max %.2f ms%n",
          m.gc().count(), m.gc().totalNanos() / 1e6, m.gc().maxNanos() / 1e6, m.hiccup().p99Nanos() / 1e6,
          m.hiccup().maxNanos() / 1e6);
    }
    System.out.printf(Locale.ROOT, "RESULT records=%d bytes_per_record=%.0f gc_pauses=%d gc_max_ms=%.2f "
        + "hiccup_p99_ms=%.2f hiccup_max_ms=%.2f verdict=%s heap_max_mib=%d gc=%s%n", records, perRecord,
        m == null ? 0 : m.gc().count(), m == null ? 0 : m.gc().maxNanos() / 1e6,
        m == null ? 0 : m.hiccup().p99Nanos() / 1e6, m == null ? 0 : m.hiccup().maxNanos() / 1e6,
        verdictName, Runtime.getRuntime().maxMemory() >> 20,
        ManagementFactory.getGarbageCollectorMXBeans().get(0).getName());
    Files.deleteIfExists(journalFile);
    if (System.getenv("LONGRUN_HISTOGRAM") != null) {
      // What the retained heap is made of, with the result still reachable.
      Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
          Long.toString(ProcessHandle.current().pid()), "GC.class_histogram").redirectErrorStream(true).start();
      new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().limit(25)
          .forEach(System.out::println);
      p.waitFor();
    }
  }

  private static long usedAfterGc(MemoryMXBean memory) {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
