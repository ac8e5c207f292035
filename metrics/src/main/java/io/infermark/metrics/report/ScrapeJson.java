package io.infermark.metrics.report;

import static io.infermark.metrics.report.JsonFields.number;

import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.metrics.server.ScrapeReport;
import io.infermark.metrics.server.ServerSeries;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The server metrics scraped during a run, for the JSON report ({@code server_metrics}), the console and the HTML
 * report: the scrape counts and, per series, its samples, first, last, min, max and mean value (in the server's
 * units) and the times (s from the run's origin) of its first and last sample.
 */
final class ScrapeJson {

  private ScrapeJson() {}

  /** One series' figures; NaN values when it has no sample. */
  record Stats(String name, int samples, double first, double last, double min, double max, double mean,
      double firstSeconds, double lastSeconds) {

    static Stats of(ServerSeries s) {
      int n = s.size();
      if (n == 0) {
        return new Stats(s.name(), 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            Double.NaN);
      }
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      double sum = 0;
      for (int i = 0; i < n; i++) {
        double v = s.value(i);
        min = Math.min(min, v);
        max = Math.max(max, v);
        sum += v;
      }
      return new Stats(s.name(), n, s.value(0), s.value(n - 1), min, max, sum / n, s.timeNanos(0) / 1e9,
          s.timeNanos(n - 1) / 1e9);
    }
  }

  static void write(JsonGenerator g, ScrapeReport r) throws IOException {
    g.writeObjectFieldStart("server_metrics");
    g.writeStringField("endpoint", r.endpoint());
    g.writeNumberField("interval_s", r.interval().toNanos() / 1e9);
    g.writeNumberField("timeout_s", r.timeout().toNanos() / 1e9);
    g.writeNumberField("successful_scrapes", r.successful());
    g.writeNumberField("late_scrapes", r.late());
    g.writeNumberField("failed_scrapes", r.failed());
    g.writeObjectFieldStart("series");
    for (ServerSeries s : r.series()) {
      Stats st = Stats.of(s);
      g.writeObjectFieldStart(s.name());
      g.writeNumberField("samples", st.samples());
      number(g, "first", st.first());
      number(g, "last", st.last());
      number(g, "min", st.min());
      number(g, "max", st.max());
      number(g, "mean", st.mean());
      number(g, "first_s", st.firstSeconds());
      number(g, "last_s", st.lastSeconds());
      g.writeEndObject();
    }
    g.writeEndObject();
    g.writeEndObject();
  }

  /** Console lines: the counts, then one line per series. */
  static List<String> lines(ScrapeReport r) {
    List<String> lines = new ArrayList<>();
    lines.add("server metrics " + r.endpoint());
    lines.add("  " + r.counts());
    for (ServerSeries s : r.series()) {
      Stats st = Stats.of(s);
      lines.add(st.samples() == 0 ? "  " + s.name() + ": no samples"
          : String.format(Locale.ROOT, "  %s: %d samples, first %s, last %s, min %s, max %s, mean %s", s.name(),
              st.samples(), fmt(st.first()), fmt(st.last()), fmt(st.min()), fmt(st.max()), fmt(st.mean())));
    }
    return lines;
  }

  static String fmt(double v) {
    if (!Double.isFinite(v)) {
      return Double.isNaN(v) ? "-" : v > 0 ? "+Inf" : "-Inf";
    }
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.4g", v);
  }
}
