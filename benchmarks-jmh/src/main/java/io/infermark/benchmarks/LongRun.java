package io.infermark.benchmarks;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.health.ClientMeasurements;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.target.OpenAiTarget;
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
 * retained heap per record: heap used after a full collection with the result held, minus before the run,
 * divided by the records.
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
    long after = usedAfterGc(memory);
    int records = result.records().size();
    double perRecord = records == 0 ? 0 : (after - before) / (double) records;
    ClientMeasurements m = result.clientHealth().measurements().orElse(null);
    System.out.printf(Locale.ROOT, "records %d in %.1f s (%.0f/s), journal %d MiB%n", records,
        result.durationNanos() / 1e9, records / (result.durationNanos() / 1e9), Files.size(journalFile) >> 20);
    System.out.printf(Locale.ROOT, "retained heap %.1f MiB: %.0f bytes per record%n", (after - before) / 1048576.0,
        perRecord);
    System.out.println("client health: " + result.clientHealth().verdict() + " " + result.clientHealth().reasons());
    if (m != null) {
      System.out.printf(Locale.ROOT, "GC pauses: %d, total %.1f ms, longest %.2f ms; hiccup p99 %.2f ms, max %.2f ms%n",
          m.gc().count(), m.gc().totalNanos() / 1e6, m.gc().maxNanos() / 1e6, m.hiccup().p99Nanos() / 1e6,
          m.hiccup().maxNanos() / 1e6);
    }
    System.out.printf(Locale.ROOT, "RESULT records=%d bytes_per_record=%.0f gc_pauses=%d gc_max_ms=%.2f "
        + "hiccup_p99_ms=%.2f hiccup_max_ms=%.2f verdict=%s heap_max_mib=%d gc=%s%n", records, perRecord,
        m == null ? 0 : m.gc().count(), m == null ? 0 : m.gc().maxNanos() / 1e6,
        m == null ? 0 : m.hiccup().p99Nanos() / 1e6, m == null ? 0 : m.hiccup().maxNanos() / 1e6,
        result.clientHealth().verdict(), Runtime.getRuntime().maxMemory() >> 20,
        ManagementFactory.getGarbageCollectorMXBeans().get(0).getName());
    Files.deleteIfExists(journalFile);
  }

  private static long usedAfterGc(MemoryMXBean memory) {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
