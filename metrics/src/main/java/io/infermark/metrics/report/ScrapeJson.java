package io.infermark.metrics.report;

import static io.infermark.metrics.report.JsonFields.number;

import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.metrics.server.MemoryThreshold;
import io.infermark.metrics.server.MemoryThresholds;
import io.infermark.metrics.server.ScrapeReport;
import io.infermark.metrics.server.ServerSeries;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

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
    if (!r.memoryThresholds().thresholds().isEmpty()) {
      g.writeObjectFieldStart("memory_thresholds");
      g.writeArrayFieldStart("watched");
      for (MemoryThreshold t : r.memoryThresholds().thresholds()) {
        g.writeStartObject();
        g.writeStringField("label", t.label());
        g.writeNumberField("level", t.level());
        g.writeStringField("meaning", t.meaning());
        Optional<String> read = readFrom(r, t);
        if (read.isPresent()) {
          g.writeStringField("series", read.get());
        } else {
          g.writeNullField("series");
        }
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("crossings");
      for (MemoryThresholds.Crossing c : r.memoryCrossings()) {
        g.writeStartObject();
        g.writeStringField("label", c.threshold().label());
        g.writeStringField("series", c.series());
        g.writeStringField("direction", c.direction().word());
        g.writeNumberField("from_s", c.fromNanos() / 1e9);
        g.writeNumberField("to_s", c.toNanos() / 1e9);
        number(g, "before", c.before());
        number(g, "after", c.after());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    g.writeEndObject();
  }

  /** The series a threshold read in this report, if any of its series has samples. */
  static Optional<String> readFrom(ScrapeReport r, MemoryThreshold t) {
    return t.series().stream().filter(name -> r.series().stream().anyMatch(s -> s.name().equals(name) && s.size() > 0))
        .findFirst();
  }

  /** Console lines of the memory thresholds: each watched one, then each crossing; none when none was watched. */
  static List<String> memoryLines(ScrapeReport r) {
    List<String> lines = new ArrayList<>();
    if (r.memoryThresholds().thresholds().isEmpty()) {
      return lines;
    }
    List<String> watched = new ArrayList<>();
    for (MemoryThreshold t : r.memoryThresholds().thresholds()) {
      watched.add(t.label() + readFrom(r, t).map(s -> " on " + s).orElse(" (not exported)"));
    }
    List<MemoryThresholds.Crossing> crossings = r.memoryCrossings();
    lines.add("  memory thresholds: " + String.join(", ", watched) + ": " + crossings.size() + " crossing"
        + (crossings.size() == 1 ? "" : "s"));
    crossings.forEach(c -> lines.add("    " + c));
    return lines;
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
    lines.addAll(memoryLines(r));
    return lines;
  }

  static String fmt(double v) {
    if (!Double.isFinite(v)) {
      return Double.isNaN(v) ? "-" : v > 0 ? "+Inf" : "-Inf";
    }
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.4g", v);
  }
}
