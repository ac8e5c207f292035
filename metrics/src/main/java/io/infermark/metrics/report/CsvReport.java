package io.infermark.metrics.report;

import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.Percentile;
import io.infermark.metrics.RunSummary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * Writes run summaries as CSV (RFC 4180, comma-separated, {@code \r\n} line ends, a header row), one
 * row per summary, for spreadsheets and plotting: a label, the run's start and target, request
 * counts, throughput, the client's health verdict and measurement floor, and for TTFT, TPOT, ITL and
 * E2E the count, mean and every standard percentile in ms. Missing values are empty cells.
 *
 * <p>Columns: {@code label, started_at, target, measured, succeeded, failed, duration_s,
 * request_throughput_rps, output_token_throughput_tps, total_token_throughput_tps, client_verdict
 * (ok, degraded, client_bound, unmeasured), client_floor_ms}, then for each
 * metric {@code m} of ttft, tpot, itl, e2e: {@code m_count, m_mean_ms, m_p50_ms, m_p90_ms, m_p95_ms,
 * m_p99_ms, m_p99_9_ms, m_max_ms}.
 *
 * <p>Text cells that a spreadsheet would run as a formula (starting with {@code = + - @}) are
 * prefixed with an apostrophe, and cells with commas, quotes or line breaks are quoted.
 */
public final class CsvReport {

  private static final LatencyMetric[] METRICS = {LatencyMetric.TTFT, LatencyMetric.TPOT, LatencyMetric.ITL,
      LatencyMetric.E2E};

  private CsvReport() {}

  /** The header and one row per summary, keyed by label in the map's order. */
  public static String toCsv(Map<String, RunSummary> summaries) {
    Objects.requireNonNull(summaries, "summaries");
    StringBuilder out = new StringBuilder();
    line(out, header());
    summaries.forEach((label, s) -> line(out, row(label, s)));
    return out.toString();
  }

  /** The header and one row for a single summary. */
  public static String toCsv(String label, RunSummary summary) {
    Map<String, RunSummary> one = new LinkedHashMap<>();
    one.put(label, summary);
    return toCsv(one);
  }

  /**
   * Writes the CSV to a file (UTF-8), replacing it.
   *
   * @throws UncheckedIOException if the file cannot be written
   */
  public static void write(Map<String, RunSummary> summaries, Path file) {
    try {
      Files.writeString(file, toCsv(summaries), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write CSV to " + file + ": " + e.getMessage(), e);
    }
  }

  /** The column names. */
  public static List<String> header() {
    List<String> h = new ArrayList<>(List.of("label", "started_at", "target", "measured", "succeeded", "failed",
        "duration_s", "request_throughput_rps", "output_token_throughput_tps", "total_token_throughput_tps",
        "client_verdict", "client_floor_ms"));
    for (LatencyMetric m : METRICS) {
      String n = m.name().toLowerCase(java.util.Locale.ROOT);
      h.add(n + "_count");
      h.add(n + "_mean_ms");
      for (Percentile p : Percentile.values()) {
        h.add(n + "_" + p.fieldName() + "_ms");
      }
      h.add(n + "_max_ms");
    }
    return h;
  }

  private static List<String> row(String label, RunSummary s) {
    List<String> r = new ArrayList<>();
    r.add(text(label));
    r.add(s.run().startedAt().toString());
    r.add(text(s.run().target()));
    r.add(Integer.toString(s.requests().measured()));
    r.add(Integer.toString(s.requests().succeeded()));
    r.add(Integer.toString(s.requests().failed()));
    r.add(s.window().map(w -> Double.toString(w.durationSeconds())).orElse(""));
    r.add(number(s.requestThroughputRps()));
    r.add(number(s.outputTokenThroughputTps()));
    r.add(number(s.totalTokenThroughputTps()));
    r.add(s.clientHealth().verdict().name().toLowerCase(java.util.Locale.ROOT));
    r.add(Double.toString(s.clientHealth().floorMillis()));
    for (LatencyMetric m : METRICS) {
      Distribution d = s.distribution(m);
      r.add(Integer.toString(d.count()));
      r.add(number(d.mean()));
      for (Percentile p : Percentile.values()) {
        r.add(number(d.percentile(p.p())));
      }
      r.add(number(d.max()));
    }
    return r;
  }

  private static String number(OptionalDouble v) {
    return v.isPresent() ? Double.toString(v.getAsDouble()) : "";
  }

  /** Defuses formulas; quoting happens when the line is written. */
  private static String text(String s) {
    return !s.isEmpty() && "=+-@".indexOf(s.charAt(0)) >= 0 ? "'" + s : s;
  }

  private static void line(StringBuilder out, List<String> cells) {
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      String c = cells.get(i);
      if (c.indexOf(',') >= 0 || c.indexOf('"') >= 0 || c.indexOf('\n') >= 0 || c.indexOf('\r') >= 0) {
        out.append('"').append(c.replace("\"", "\"\"")).append('"');
      } else {
        out.append(c);
      }
    }
    out.append("\r\n");
  }
}
