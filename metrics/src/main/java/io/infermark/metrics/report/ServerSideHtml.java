package io.infermark.metrics.report;

import io.infermark.metrics.Distribution;
import io.infermark.metrics.Percentile;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.ServerTimingGap;
import io.infermark.metrics.cache.PrefixCacheSummary;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The HTML report's sections about what the server said of itself: client − server per request
 * ({@link ServerTimingGap}) and the prefix cache ({@link PrefixCacheSummary}). Every text is escaped.
 */
final class ServerSideHtml {

  /** The most sessions listed one by one; the JSON report has them all. */
  static final int MAX_SESSION_ROWS = 50;

  private ServerSideHtml() {}

  /** The "Client − server" table, or nothing when no server reported durations. */
  static void clientMinusServer(StringBuilder b, RunSummary s) {
    if (s.clientMinusServer().isEmpty()) {
      return;
    }
    b.append("<h2>Client − server</h2><p class='meta'>Per request, the client's time minus the duration the server "
        + "reported for the same span (ms): what the network, the client and the server's unreported work add.</p>");
    header(b, "gap (ms)");
    for (Map.Entry<ServerTimingGap, Distribution> e : s.clientMinusServer().entrySet()) {
      row(b, e.getKey().label(), e.getKey().definition(), e.getValue());
    }
    b.append("</tbody></table>");
  }

  /** The "Prefix cache" section, or nothing when it has nothing to show. */
  static void prefixCache(StringBuilder b, RunSummary s) {
    PrefixCacheSummary c = s.prefixCache();
    if (c.isEmpty()) {
      return;
    }
    b.append("<h2>Prefix cache</h2><p class='meta'>").append(Html.escape(PrefixCacheJson.DEFINITION)).append("</p>");
    boolean ideal = c.idealTokenizer().isPresent();
    if (ideal) {
      b.append("<p class='meta'>Ideal counted by ").append(Html.escape(c.idealTokenizer().get())).append(".</p>");
    }
    b.append("<table><thead><tr><th>group</th><th>requests</th><th>reported</th><th>hits</th><th>cached tokens</th>"
        + "<th>prompt tokens</th><th>hit ratio</th>");
    if (ideal) {
      b.append("<th>ideal ratio</th>");
    }
    b.append("</tr></thead><tbody>");
    group(b, "run", c.run(), ideal);
    for (Map.Entry<String, PrefixCacheSummary.Group> e : c.byTurn().entrySet()) {
      group(b, "turn " + e.getKey(), e.getValue(), ideal);
    }
    int shown = 0;
    for (Map.Entry<String, PrefixCacheSummary.Group> e : c.bySession().entrySet()) {
      if (shown++ == MAX_SESSION_ROWS) {
        b.append("<tr><td colspan='").append(ideal ? 8 : 7).append("' class='muted'>")
            .append(c.bySession().size() - MAX_SESSION_ROWS).append(" more sessions in the JSON report</td></tr>");
        break;
      }
      group(b, "session " + e.getKey(), e.getValue(), ideal);
    }
    b.append("</tbody></table>");
    if (!c.ttftHit().isEmpty() || !c.ttftMiss().isEmpty()) {
      header(b, "TTFT (ms)");
      row(b, "cache hit", "TTFT of requests whose server reported cached prompt tokens > 0", c.ttftHit());
      row(b, "cache miss", "TTFT of requests whose server reported 0 cached prompt tokens", c.ttftMiss());
      b.append("</tbody></table>");
    }
  }

  /** The "Server metrics" table: the scrape counts, then one row per series (charts follow in the time series). */
  static void serverMetrics(StringBuilder b, io.infermark.metrics.server.ScrapeReport r) {
    b.append("<h2>Server metrics</h2><p class='meta'>").append(Html.escape(r.summary()))
        .append("; a late scrape ended after the next was due (kept), a failed one returned no page.</p>")
        .append("<table><thead><tr><th>series</th><th>samples</th><th>first</th><th>last</th><th>min</th><th>max</th>"
            + "<th>mean</th></tr></thead><tbody>");
    for (io.infermark.metrics.server.ServerSeries s : r.series()) {
      ScrapeJson.Stats st = ScrapeJson.Stats.of(s);
      b.append("<tr><td>").append(Html.escape(s.name())).append("</td><td>").append(st.samples()).append("</td>");
      for (double v : new double[] {st.first(), st.last(), st.min(), st.max(), st.mean()}) {
        b.append("<td>").append(Html.escape(ScrapeJson.fmt(v))).append("</td>");
      }
      b.append("</tr>");
    }
    b.append("</tbody></table>");
    if (!r.memoryThresholds().thresholds().isEmpty()) {
      java.util.List<String> watched = ScrapeJson.memoryLines(r);
      b.append("<h3>Memory thresholds</h3><p class='meta'>").append(Html.escape(watched.get(0).strip()))
          .append("; a crossing happened between the two scrapes named (run clock).</p>");
      java.util.List<io.infermark.metrics.server.MemoryThresholds.Crossing> crossings = r.memoryCrossings();
      if (!crossings.isEmpty()) {
        b.append("<table><thead><tr><th>threshold</th><th>series</th><th>direction</th><th>between (s)</th>"
            + "<th>before</th><th>after</th></tr></thead><tbody>");
        for (io.infermark.metrics.server.MemoryThresholds.Crossing c : crossings) {
          b.append("<tr><td title='").append(Html.escape(c.threshold().meaning())).append("'>")
              .append(Html.escape(c.threshold().label() + ": " + c.threshold().meaning())).append("</td><td>")
              .append(Html.escape(c.series())).append("</td><td>").append(c.direction().word()).append("</td><td>")
              .append(Html.escape(String.format(java.util.Locale.ROOT, "%.3f – %.3f", c.fromNanos() / 1e9,
                  c.toNanos() / 1e9))).append("</td><td>").append(Html.escape(ScrapeJson.fmt(c.before())))
              .append("</td><td>").append(Html.escape(ScrapeJson.fmt(c.after()))).append("</td></tr>");
        }
        b.append("</tbody></table>");
      }
    }
  }

  private static void group(StringBuilder b, String name, PrefixCacheSummary.Group g, boolean ideal) {
    b.append("<tr><td>").append(Html.escape(name)).append("</td><td>").append(g.requests()).append("</td><td>")
        .append(g.reporting()).append("</td><td>").append(g.hits()).append("</td><td>").append(g.cachedTokens())
        .append("</td><td>").append(g.promptTokens()).append("</td><td>").append(ratio(g.hitRatio())).append("</td>");
    if (ideal) {
      b.append("<td>").append(ratio(g.idealRatio())).append("</td>");
    }
    b.append("</tr>");
  }

  private static void header(StringBuilder b, String first) {
    b.append("<table><thead><tr><th>").append(Html.escape(first)).append("</th><th>count</th><th>mean</th>");
    for (Percentile p : Percentile.values()) {
      b.append("<th>").append(p.label()).append("</th>");
    }
    b.append("<th>max</th></tr></thead><tbody>");
  }

  private static void row(StringBuilder b, String name, String title, Distribution d) {
    b.append("<tr><td title='").append(Html.escape(title)).append("'>").append(Html.escape(name)).append("</td><td>")
        .append(d.count()).append("</td><td>").append(num(d.mean())).append("</td>");
    for (Percentile p : Percentile.values()) {
      b.append("<td>").append(num(d.percentile(p.p()))).append("</td>");
    }
    b.append("<td>").append(num(d.max())).append("</td></tr>");
  }

  private static String num(OptionalDouble v) {
    return v.isPresent() ? Html.escape(Charts.fmt(v.getAsDouble())) : "–";
  }

  private static String ratio(OptionalDouble r) {
    return r.isPresent() ? String.format(Locale.ROOT, "%.1f %%", r.getAsDouble() * 100) : "–";
  }
}
