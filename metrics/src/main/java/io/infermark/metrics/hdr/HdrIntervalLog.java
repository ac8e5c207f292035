package io.infermark.metrics.hdr;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * Writes a run's latencies as an HdrHistogram interval log ({@link HistogramLogWriter} format), which
 * HdrHistogram's own tools ({@code HistogramLogReader}, {@code HistogramLogProcessor}, the online
 * log analyzers) read: one histogram per metric per interval, tagged with the metric's name
 * ({@code TTFT}, {@code ITL}, {@code E2E} by default), values in nanoseconds (the writer's default
 * max-value ratio of 10^6 shows them in ms), timestamps from the run's wall-clock start
 * ({@code #[StartTime]} and {@code #[BaseTime]} are {@link RunResult#startedAt()}).
 *
 * <p>A value is placed in the interval in which it happened: TTFT at the first token's arrival, each
 * ITL gap at the chunk that ends it, E2E at the last token; successful measured requests only.
 * Intervals without values are left out.
 */
public final class HdrIntervalLog {

  /** The metrics logged unless others are chosen. */
  public static final List<LatencyMetric> DEFAULT_METRICS = List.of(LatencyMetric.TTFT, LatencyMetric.ITL,
      LatencyMetric.E2E);

  /** The significant decimal digits of every logged histogram. */
  public static final int SIGNIFICANT_DIGITS = 3;

  private HdrIntervalLog() {}

  /**
   * Writes TTFT, ITL and E2E in 1 s intervals to a file, replacing it.
   *
   * @throws UncheckedIOException if the file cannot be written
   */
  public static void write(RunResult run, Path file) {
    try (OutputStream out = Files.newOutputStream(file)) {
      write(run, Duration.ofSeconds(1), DEFAULT_METRICS, out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the interval log to " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes the chosen metrics in intervals of the given length to a stream, which is flushed but left open.
   *
   * @throws IllegalArgumentException if the interval is not positive or no metric is chosen
   * @throws IllegalStateException if the run did not retain its records
   */
  public static void write(RunResult run, Duration interval, List<LatencyMetric> metrics, OutputStream out) {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(out, "out");
    long width = interval.toNanos();
    if (width <= 0) {
      throw new IllegalArgumentException("interval must be positive, was " + interval);
    }
    if (metrics.isEmpty()) {
      throw new IllegalArgumentException("choose at least one metric to log");
    }
    // interval index -> metric -> histogram; TreeMap keeps the log in time order.
    TreeMap<Long, Map<LatencyMetric, Histogram>> intervals = new TreeMap<>();
    for (RequestRecord r : run.records()) {
      if (!r.measured() || !r.succeeded()) {
        continue;
      }
      for (LatencyMetric m : metrics) {
        place(m, r, width, intervals);
      }
    }
    long base = run.startedAt().toEpochMilli();
    PrintStream print = new PrintStream(out, false, StandardCharsets.UTF_8);
    HistogramLogWriter writer = new HistogramLogWriter(print);
    writer.outputComment("infermark interval log: " + String.join(", ", metrics.stream().map(Enum::name).toList())
        + " in ns, " + interval.toMillis() + " ms intervals");
    writer.outputLogFormatVersion();
    writer.outputStartTime(base);
    writer.setBaseTime(base);
    writer.outputBaseTime(base);
    writer.outputLegend();
    for (Map.Entry<Long, Map<LatencyMetric, Histogram>> e : intervals.entrySet()) {
      for (Map.Entry<LatencyMetric, Histogram> h : e.getValue().entrySet()) {
        Histogram histogram = h.getValue();
        histogram.setTag(h.getKey().name());
        histogram.setStartTimeStamp(base + e.getKey() * width / 1_000_000);
        histogram.setEndTimeStamp(base + (e.getKey() + 1) * width / 1_000_000);
        writer.outputIntervalHistogram(histogram);
      }
    }
    print.flush();
    if (print.checkError()) {
      throw new UncheckedIOException(new IOException("cannot write the interval log"));
    }
  }

  private static void place(LatencyMetric m, RequestRecord r, long width,
      TreeMap<Long, Map<LatencyMetric, Histogram>> intervals) {
    ChunkTimeline c = r.chunks();
    if (m == LatencyMetric.ITL) {
      ChunkTimeline.TokenGaps gaps = c.gaps();
      while (gaps.next()) {
        histogram(intervals, (r.sendNanos() + gaps.endOffsetNanos()) / width, m).recordValue(gaps.gapNanos());
      }
      return;
    }
    double[] values = m.valuesMillis(r);
    if (values.length == 0) {
      return;
    }
    long at = m == LatencyMetric.TTFT || m == LatencyMetric.TTFT_FROM_INTENDED
        ? r.sendNanos() + c.firstTokenOffsetNanos().getAsLong()
        : r.sendNanos() + c.lastTokenOffsetNanos().orElse(r.endOffsetNanos());
    for (double v : values) {
      histogram(intervals, Math.max(at, 0) / width, m).recordValue(Math.max(0, Math.round(v * 1e6)));
    }
  }

  private static Histogram histogram(TreeMap<Long, Map<LatencyMetric, Histogram>> intervals, long index,
      LatencyMetric m) {
    return intervals.computeIfAbsent(index, k -> new EnumMap<>(LatencyMetric.class))
        .computeIfAbsent(m, k -> newHistogram());
  }

  /** An auto-resizing histogram of nanoseconds with {@value #SIGNIFICANT_DIGITS} significant digits. */
  static Histogram newHistogram() {
    Histogram h = new Histogram(SIGNIFICANT_DIGITS);
    h.setAutoResize(true);
    return h;
  }
}
