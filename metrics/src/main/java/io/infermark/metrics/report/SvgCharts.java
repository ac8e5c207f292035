package io.infermark.metrics.report;

import io.infermark.metrics.timeseries.LatencyHeatmap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws the report's charts as inline SVG strings: no script, no external resource. Every label
 * passes through {@link Html#escape}.
 */
final class SvgCharts {

  static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
      "#17becf"};
  private static final int W = 640;
  private static final int H = 300;
  private static final int LEFT = 64;
  private static final int RIGHT = 16;
  private static final int TOP = 48;
  private static final int BOTTOM = 44;

  /** A line to draw; NaN y values break the line. */
  record Line(String name, double[] x, double[] y, boolean markers) {
  }

  private SvgCharts() {}

  static String lineChart(String title, String xLabel, String yLabel, List<Line> lines, boolean logX) {
    return lineChart(title, xLabel, yLabel, lines, logX, Double.NaN);
  }

  /** A line chart; {@code fixedYMax} (NaN for automatic) pins the top of the y axis, 1 for a CDF. */
  static String lineChart(String title, String xLabel, String yLabel, List<Line> lines, boolean logX,
      double fixedYMax) {
    double xMin = Double.POSITIVE_INFINITY;
    double xMax = Double.NEGATIVE_INFINITY;
    double yMax = 0;
    for (Line l : lines) {
      for (int i = 0; i < l.x().length; i++) {
        double x = l.x()[i];
        if (!Double.isFinite(x) || !Double.isFinite(l.y()[i]) || (logX && x <= 0)) {
          continue;
        }
        xMin = Math.min(xMin, x);
        xMax = Math.max(xMax, x);
        yMax = Math.max(yMax, l.y()[i]);
      }
    }
    StringBuilder s = open(title);
    if (xMin == Double.POSITIVE_INFINITY) {
      s.append(text(W / 2.0, H / 2.0, "no data", "middle", "#888"));
      return s.append("</svg>").toString();
    }
    if (xMax == xMin) {
      xMax = logX ? xMin * 10 : xMin + 1;
    }
    if (yMax == 0) {
      yMax = 1;
    }
    double[] yTicks = Double.isNaN(fixedYMax) ? niceTicks(0, yMax * 1.05) : niceTicks(0, fixedYMax);
    double yTop = yTicks[yTicks.length - 1];
    final double fxMin = logX ? Math.log10(xMin) : xMin;
    final double fxMax = logX ? Math.log10(xMax) : xMax;
    double[] xTicks = logX ? logTicks(xMin, xMax) : niceTicks(xMin, xMax);
    axes(s, xLabel, yLabel);
    for (double t : yTicks) {
      double y = py(t, yTop);
      s.append(String.format(Locale.ROOT, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#eee'/>", LEFT, y,
          W - RIGHT, y));
      s.append(text(LEFT - 6, y + 4, fmt(t), "end", "#444"));
    }
    for (double t : xTicks) {
      double v = logX ? Math.log10(t) : t;
      if (v < fxMin - 1e-9 || v > fxMax + 1e-9) {
        continue;
      }
      double x = px(v, fxMin, fxMax);
      s.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#eee'/>", x, TOP, x,
          H - BOTTOM));
      s.append(text(x, H - BOTTOM + 16, fmt(t), "middle", "#444"));
    }
    for (int k = 0; k < lines.size(); k++) {
      Line l = lines.get(k);
      String color = COLORS[k % COLORS.length];
      StringBuilder path = new StringBuilder();
      boolean pen = false;
      for (int i = 0; i < l.x().length; i++) {
        double xv = l.x()[i];
        double yv = l.y()[i];
        if (!Double.isFinite(xv) || !Double.isFinite(yv) || (logX && xv <= 0)) {
          pen = false;
          continue;
        }
        double x = px(logX ? Math.log10(xv) : xv, fxMin, fxMax);
        double y = py(yv, yTop);
        path.append(pen ? " L" : " M").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
        pen = true;
        if (l.markers()) {
          s.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%.1f' r='3.5' fill='%s'/>", x, y, color));
        }
      }
      if (path.length() > 0) {
        s.append("<path d='").append(path.toString().trim()).append("' fill='none' stroke='").append(color)
            .append("' stroke-width='1.8'/>");
      }
      // Legend in the band between the title and the plot, so it never hides a line.
      double lx = LEFT + (k % 4) * 140;
      double ly = 38 + (k / 4) * 14;
      s.append(String.format(Locale.ROOT, "<rect x='%.1f' y='%.1f' width='12' height='4' fill='%s'/>", lx, ly - 4,
          color));
      s.append(text(lx + 16, ly, l.name(), "start", "#222"));
    }
    return s.append("</svg>").toString();
  }

  static String heatmap(String title, LatencyHeatmap h) {
    StringBuilder s = open(title);
    int rows = h.timeBuckets();
    int cols = h.latencyBuckets();
    if (h.total() == 0) {
      s.append(text(W / 2.0, H / 2.0, "no data", "middle", "#888"));
      return s.append("</svg>").toString();
    }
    axes(s, "time (s)", "latency (ms, log)");
    double cw = (double) (W - LEFT - RIGHT) / rows;
    double ch = (double) (H - TOP - BOTTOM) / cols;
    double logMax = Math.log1p(h.maxCount());
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        int c = h.count(i, j);
        if (c == 0) {
          continue;
        }
        double f = Math.log1p(c) / logMax;
        int r = (int) Math.round(255 - f * (255 - 8));
        int g = (int) Math.round(255 - f * (255 - 48));
        int b = (int) Math.round(255 - f * (255 - 107));
        s.append(String.format(Locale.ROOT, "<rect x='%.2f' y='%.2f' width='%.2f' height='%.2f' fill='rgb(%d,%d,%d)'>"
            + "<title>%d</title></rect>", LEFT + i * cw, H - BOTTOM - (j + 1) * ch, cw + 0.3, ch + 0.3, r, g, b, c));
      }
    }
    double seconds = h.intervalNanos() / 1e9;
    for (double t : niceTicks(0, rows * seconds)) {
      double x = LEFT + t / seconds * cw;
      if (x <= W - RIGHT + 0.5) {
        s.append(text(x, H - BOTTOM + 16, fmt(t), "middle", "#444"));
      }
    }
    for (int j = 0; j <= cols; j += h.bucketsPerDecade()) {
      double y = H - BOTTOM - j * ch;
      s.append(String.format(Locale.ROOT, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ccc'/>", LEFT - 4, y,
          LEFT, y));
      s.append(text(LEFT - 6, y + 4, fmt(h.lowerEdgeMillis(j)), "end", "#444"));
    }
    return s.append("</svg>").toString();
  }

  private static StringBuilder open(String title) {
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "<svg viewBox='0 0 %d %d' width='%d' "
        + "height='%d' role='img'>", W, H, W, H));
    s.append("<title>").append(Html.escape(title)).append("</title>");
    s.append("<rect width='100%' height='100%' fill='#fff'/>");
    s.append(text(LEFT, 20, title, "start", "#111").replace("<text ", "<text font-weight='600' "));
    return s;
  }

  private static void axes(StringBuilder s, String xLabel, String yLabel) {
    s.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#333'/>", LEFT, H - BOTTOM,
        W - RIGHT, H - BOTTOM));
    s.append(String.format(Locale.ROOT, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#333'/>", LEFT, TOP, LEFT,
        H - BOTTOM));
    s.append(text((LEFT + W - RIGHT) / 2.0, H - 8, xLabel, "middle", "#333"));
    s.append(String.format(Locale.ROOT, "<text x='14' y='%.1f' font-size='12' fill='#333' text-anchor='middle' "
        + "transform='rotate(-90 14 %.1f)'>%s</text>", (TOP + H - BOTTOM) / 2.0, (TOP + H - BOTTOM) / 2.0,
        Html.escape(yLabel)));
  }

  private static String text(double x, double y, String t, String anchor, String color) {
    return String.format(Locale.ROOT, "<text x='%.1f' y='%.1f' font-size='12' fill='%s' text-anchor='%s'>%s</text>", x,
        y, color, anchor, Html.escape(t));
  }

  private static double px(double v, double min, double max) {
    return LEFT + (v - min) / (max - min) * (W - LEFT - RIGHT);
  }

  private static double py(double v, double top) {
    return H - BOTTOM - v / top * (H - TOP - BOTTOM);
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

  private static double[] logTicks(double lo, double hi) {
    List<Double> ticks = new ArrayList<>();
    boolean fine = Math.log10(hi / lo) < 2.5;
    for (double d = Math.pow(10, Math.floor(Math.log10(lo))); d <= hi * 1.0001; d *= 10) {
      for (double m : fine ? new double[] {1, 2, 5} : new double[] {1}) {
        if (d * m >= lo * 0.9999 && d * m <= hi * 1.0001) {
          ticks.add(d * m);
        }
      }
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
