package io.infermark.benchmarks;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.hdr.StreamingSummary;
import io.infermark.metrics.report.HtmlReport;
import io.infermark.metrics.report.JsonReport;
import io.infermark.metrics.slo.SloPresets;
import io.infermark.metrics.slo.SloReport;
import io.infermark.metrics.timeseries.TimeSeries;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Measures what JMH cannot: memory per retained record, the time to summarise and report large
 * runs, and that the streaming summary stays flat. Prints one line per measurement.
 *
 * <pre>{@code
 * java -Xmx12g -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.MetricsMemory \
 *     [summaryRecords [all|memory|reports|summary|streaming]]
 * }</pre>
 *
 * Memory is the used heap after repeated full GCs, before and after building the records, divided by
 * their count: it includes the record, its chunk timeline, its maps and strings, and the list slot.
 */
public final class MetricsMemory {

  private MetricsMemory() {}

  public static void main(String[] args) {
    int summaryRecords = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    String only = args.length > 1 ? args[1] : "all";
    if (only.equals("all") || only.equals("memory")) {
      perRecordMemory(200_000);
    }
    if (only.equals("all") || only.equals("reports")) {
      reportTimes(100_000);
    }
    if (only.equals("all") || only.equals("summary")) {
      summaryTime(summaryRecords);
    }
    if (only.equals("all") || only.equals("streaming")) {
      streamingFlat(5_000_000);
    }
  }

  private static long usedAfterGc() {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  private static void perRecordMemory(int n) {
    long before = usedAfterGc();
    List<RequestRecord> records = MetricsData.records(n, MetricsBenchmark.CHUNKS, 3);
    long after = usedAfterGc();
    System.out.printf(Locale.ROOT, "retained record of %d chunks: %.0f bytes each (%d records, %.1f MiB)%n",
        MetricsBenchmark.CHUNKS, (double) (after - before) / n, records.size(), (after - before) / 1048576.0);
  }

  private static void reportTimes(int n) {
    RunResult run = MetricsData.run(MetricsData.records(n, MetricsBenchmark.CHUNKS, 4));
    for (int round = 0; round < 3; round++) {
      long t0 = System.nanoTime();
      RunSummary s = RunSummary.of(run);
      long t1 = System.nanoTime();
      TimeSeries series = TimeSeries.of(run);
      SloReport slo = SloPresets.chat().evaluate(run, s);
      String json = JsonReport.toJson(s, JsonReport.Extras.NONE.withSeries(series).withSlo(slo));
      long t2 = System.nanoTime();
      String html = HtmlReport.builder(run).slo(slo).build().html();
      long t3 = System.nanoTime();
      System.out.printf(Locale.ROOT, "%d records x %d chunks, round %d: summary %.0f ms; series+SLO+JSON %.0f ms "
          + "(%d chars); HTML %.0f ms (%d chars)%n", n, MetricsBenchmark.CHUNKS, round, (t1 - t0) / 1e6,
          (t2 - t1) / 1e6, json.length(), (t3 - t2) / 1e6, html.length());
    }
  }

  private static void summaryTime(int n) {
    RunResult run = MetricsData.run(MetricsData.records(n, MetricsBenchmark.CHUNKS, 5));
    var threads = ManagementFactory.getThreadMXBean();
    for (int round = 0; round < 3; round++) {
      long gc0 = gcMillis();
      long cpu0 = threads.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      RunSummary s = RunSummary.of(run);
      long t1 = System.nanoTime();
      long cpu1 = threads.getCurrentThreadCpuTime();
      // CPU time of this thread plus GC time is what the summary costs when it has a core to itself;
      // wall time on a shared machine also counts waiting for one.
      System.out.printf(Locale.ROOT, "RunSummary of %d records x %d chunks, round %d: wall %.2f s, thread CPU %.2f s, "
          + "GC %.2f s (%d ITL values)%n", n, MetricsBenchmark.CHUNKS, round, (t1 - t0) / 1e9, (cpu1 - cpu0) / 1e9,
          (gcMillis() - gc0) / 1e3, s.distribution(io.infermark.metrics.LatencyMetric.ITL).count());
    }
  }

  private static long gcMillis() {
    long total = 0;
    for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }

  private static void streamingFlat(int n) {
    StreamingSummary s = new StreamingSummary();
    SplittableRandom random = new SplittableRandom(6);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      s.onRecord(MetricsData.record(i, MetricsBenchmark.CHUNKS, random));
      if ((i + 1) % 1_000_000 == 0) {
        lines.add(String.format(Locale.ROOT, "streaming after %,d records: heap %.1f MiB, histograms %d bytes",
            i + 1, usedAfterGc() / 1048576.0, s.footprintBytes()));
      }
    }
    lines.forEach(System.out::println);
  }
}
