package io.infermark.metrics.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.timeseries.LatencyHeatmap;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The report's charts: each is a {@code <figure class="chart">} holding its data as JSON, drawn in the browser
 * by uPlot (inlined once per page by {@link HtmlPage}) and {@code charts.js}: line charts with hover values in a
 * legend and drag-to-zoom, heatmaps with a colour scale and the hovered cell's count, and a request timeline.
 * Every label is escaped: it reaches the page as JSON inside a script element, with {@code <}, {@code >} and
 * {@code &} written as JSON escapes, and is set as text by the script, never as markup.
 */
final class Charts {

  private static final JsonFactory JSON = JsonFactory.builder().build();
  /** Requests drawn on a timeline at most: beyond this the page would grow without showing more. */
  static final int TIMELINE_MAX_REQUESTS = 5000;

  /** A line to draw; NaN y values break the line. */
  record Line(String name, double[] x, double[] y, boolean markers) {
  }

  /** A vertical marker (a knee) at {@code x}, named. */
  record Mark(String name, double x) {
  }

  private Charts() {}

  static String lineChart(String title, String xLabel, String yLabel, List<Line> lines, boolean logX) {
    return lineChart(title, xLabel, yLabel, lines, logX, Double.NaN, List.of());
  }

  /** A line chart; {@code fixedYMax} (NaN for automatic) pins the top of the y axis, 1 for a CDF. */
  static String lineChart(String title, String xLabel, String yLabel, List<Line> lines, boolean logX,
      double fixedYMax) {
    return lineChart(title, xLabel, yLabel, lines, logX, fixedYMax, List.of());
  }

  /** A line chart with vertical markers. */
  static String lineChart(String title, String xLabel, String yLabel, List<Line> lines, boolean logX,
      double fixedYMax, List<Mark> marks) {
    return figure(title, "line", g -> {
      g.writeStringField("x", xLabel);
      g.writeStringField("y", yLabel);
      g.writeBooleanField("logX", logX);
      if (Double.isFinite(fixedYMax)) {
        g.writeNumberField("yMax", fixedYMax);
      } else {
        g.writeNullField("yMax");
      }
      g.writeArrayFieldStart("series");
      for (Line l : lines) {
        g.writeStartObject();
        g.writeStringField("name", l.name());
        g.writeBooleanField("points", l.markers());
        numbers(g, "x", l.x());
        numbers(g, "y", l.y());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("marks");
      for (Mark m : marks) {
        g.writeStartObject();
        g.writeStringField("name", m.name());
        g.writeNumberField("x", m.x());
        g.writeEndObject();
      }
      g.writeEndArray();
    });
  }

  /** A latency heatmap: time buckets across, log latency buckets up, requests per cell as colour. */
  static String heatmap(String title, LatencyHeatmap h) {
    return figure(title, "heatmap", g -> {
      g.writeStringField("x", "time since the run started (s)");
      g.writeStringField("y", h.metric().name() + " (ms, log scale)");
      g.writeStringField("unit", "requests per " + fmt(h.intervalNanos() / 1e9) + " s interval");
      g.writeNumberField("interval", h.intervalNanos() / 1e9);
      g.writeNumberField("max", h.maxCount());
      g.writeArrayFieldStart("edges");
      for (int j = 0; j <= h.latencyBuckets(); j++) {
        g.writeNumber(h.lowerEdgeMillis(j));
      }
      g.writeEndArray();
      g.writeArrayFieldStart("counts");
      for (int i = 0; i < h.timeBuckets(); i++) {
        g.writeStartArray();
        for (int j = 0; j < h.latencyBuckets(); j++) {
          g.writeNumber(h.count(i, j));
        }
        g.writeEndArray();
      }
      g.writeEndArray();
    });
  }

  /**
   * A request timeline, as vLLM's {@code --plot-timeline} draws one: a bar per sent request (by send time) from
   * its send to its first token-bearing chunk, then to its end; failed requests in red. At most
   * {@link #TIMELINE_MAX_REQUESTS} requests, the earliest sent.
   */
  static String timeline(String title, List<RequestRecord> records) {
    return timeline(title, records, new double[0]);
  }

  /**
   * A request timeline whose decoding bars are coloured by each inter-token gap, as vLLM's
   * {@code --timeline-itl-thresholds} colours them: green below the first threshold (ms), orange up to the
   * second, red above; consecutive gaps of one colour are drawn as one segment. No thresholds: one colour.
   */
  static String timeline(String title, List<RequestRecord> records, double[] itlThresholdsMillis) {
    List<RequestRecord> sent = records.stream().filter(RequestRecord::wasSent)
        .sorted(Comparator.comparingLong(RequestRecord::sendNanos)).limit(TIMELINE_MAX_REQUESTS).toList();
    return figure(title, "timeline", g -> {
      g.writeNumberField("total", records.stream().filter(RequestRecord::wasSent).count());
      g.writeArrayFieldStart("rows");
      for (RequestRecord r : sent) {
        double send = r.sendNanos() / 1e9;
        g.writeStartArray();
        g.writeNumber(send);
        if (r.chunks().firstTokenOffsetNanos().isPresent()) {
          g.writeNumber(send + r.chunks().firstTokenOffsetNanos().getAsLong() / 1e9);
        } else {
          g.writeNull();
        }
        g.writeNumber(send + Math.max(0, r.endOffsetNanos()) / 1e9);
        g.writeNumber(r.index());
        g.writeNumber(r.succeeded() ? 1 : 0);
        g.writeNumber(r.outputTokens());
        if (itlThresholdsMillis.length == 2) {
          itlSegments(g, r, send, itlThresholdsMillis);
        }
        g.writeEndArray();
      }
      g.writeEndArray();
      if (itlThresholdsMillis.length == 2) {
        g.writeArrayFieldStart("itlThresholds");
        g.writeNumber(itlThresholdsMillis[0]);
        g.writeNumber(itlThresholdsMillis[1]);
        g.writeEndArray();
      }
    });
  }

  /** A request's gaps between token-bearing chunks as [start s, end s, class 0/1/2] runs of one class. */
  private static void itlSegments(JsonGenerator g, RequestRecord r, double send, double[] thresholds)
      throws IOException {
    g.writeStartArray();
    io.infermark.core.capture.ChunkTimeline.TokenGaps gaps = r.chunks().gaps();
    double runStart = Double.NaN;
    int runClass = -1;
    double runEnd = Double.NaN;
    while (gaps.next()) {
      double previous = send + (gaps.endOffsetNanos() - gaps.gapNanos()) / 1e9;
      double t = send + gaps.endOffsetNanos() / 1e9;
      double gapMs = (t - previous) * 1000;
      int cls = gapMs < thresholds[0] ? 0 : gapMs < thresholds[1] ? 1 : 2;
      if (cls != runClass) {
        if (runClass >= 0) {
          segment(g, runStart, runEnd, runClass);
        }
        runStart = previous;
        runClass = cls;
      }
      runEnd = t;
    }
    if (runClass >= 0) {
      segment(g, runStart, runEnd, runClass);
    }
    g.writeEndArray();
  }

  private static void segment(JsonGenerator g, double start, double end, int cls) throws IOException {
    g.writeStartArray();
    g.writeNumber(start);
    g.writeNumber(end);
    g.writeNumber(cls);
    g.writeEndArray();
  }

  /** Writes the figure's fields after its type and title. */
  private interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private static String figure(String title, String type, Body body) {
    StringWriter json = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(json)) {
      g.writeStartObject();
      g.writeStringField("type", type);
      g.writeStringField("title", title);
      body.write(g);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return "<figure class='chart " + type + "'><figcaption>" + Html.escape(title) + "</figcaption><div class='plot'>"
        + "</div><script type='application/json' class='chart-data'>" + scriptSafe(json.toString())
        + "</script></figure>";
  }

  /**
   * JSON that cannot end its script element or open markup: {@code <}, {@code >} and {@code &} (which occur only
   * inside strings) as JSON escapes, and the two line separators JavaScript once treated as line ends.
   */
  static String scriptSafe(String json) {
    return json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029");
  }

  /** Writes {@code values} as a JSON array, a value that is not finite as {@code null}. */
  static void numbers(JsonGenerator g, String field, double[] values) throws IOException {
    g.writeArrayFieldStart(field);
    for (double v : values) {
      if (Double.isFinite(v)) {
        g.writeNumber(v);
      } else {
        g.writeNull();
      }
    }
    g.writeEndArray();
  }

  /** About five round ticks (1, 2, 5 × 10^k) covering [lo, hi]. */
  static double[] niceTicks(double lo, double hi) {
    double span = hi - lo;
    if (!(span > 0)) {
      return new double[] {lo};
    }
    double raw = span / 5;
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    List<Double> ticks = new ArrayList<>();
    for (double t = Math.floor(lo / step) * step; t <= hi + step * 0.999; t += step) {
      ticks.add(Math.abs(t) < step * 1e-9 ? 0 : t);
    }
    return ticks.stream().mapToDouble(Double::doubleValue).toArray();
  }

  static String fmt(double v) {
    double a = Math.abs(v);
    if (a == 0) {
      return "0";
    }
    if (a >= 100_000 || a < 0.001) {
      return String.format(Locale.ROOT, "%.2g", v);
    }
    if (a >= 100) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    String s = String.format(Locale.ROOT, a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f", v);
    return s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
  }
}
