package io.infermark.metrics.report;

import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.ClientMeasurements;
import io.infermark.core.health.ProbeReading;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.Percentile;
import io.infermark.metrics.RequestCounts;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TokenSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * Renders a {@link RunSummary} as one screen of plain text: a row per latency metric (count, mean,
 * p50, p90, p95, p99, p99.9, max, all in ms, with {@code *} after a percentile that rests on too few
 * samples), then, when servers reported durations of their own, a row per
 * {@link io.infermark.metrics.ServerTimingGap} (client − server per request, ms: {@code TTFT-srv prefill},
 * {@code E2E-srv total}), then requests, throughput, tokens, failures by category, schedule lag and the client's
 * health (verdict, measurement floor, hiccups, CPU, GC). A run whose client was DEGRADED or
 * CLIENT_BOUND opens with a warning that gives the reasons. Fixed-width columns, no colours, no line
 * longer than {@value #WIDTH} characters; the caller decides where it goes.
 *
 * <pre>{@code
 * metric (ms)            count      mean       p50       p90       p95       p99     p99.9       max
 * TTFT                       3    13.333    10.000    18.000    19.000    19.800*   19.980*   20.000
 * }</pre>
 */
public final class ConsoleTable {

  /** The widest line the table produces. */
  public static final int WIDTH = 100;

  private static final String UNRELIABLE = "*";
  private static final int NAME_WIDTH = 19;
  private static final int VALUE_WIDTH = 9;
  private static final int LABEL_WIDTH = 12;

  private ConsoleTable() {}

  /** The table for a summary, lines separated by {@code \n} and ending with one. */
  public static String render(RunSummary s) {
    List<String> lines = new ArrayList<>();
    lines.add(fit("infermark " + s.run().startedAt() + "  " + s.run().target()));
    lines.add(fit(s.run().load() + ", percentiles " + s.quantileMethod().name().toLowerCase(Locale.ROOT)));
    if (s.run().insecureTls()) {
      lines.add("");
      lines.add(fit("WARNING: " + io.infermark.metrics.RunInfo.INSECURE_TLS_WARNING));
    }
    if (s.availability().anyTrouble()) {
      lines.add("");
      lines.add(fit("TARGET: " + s.availability().summary()));
    }
    s.run().interruption().ifPresent(i -> {
      lines.add("");
      lines.add(fit(String.format(Locale.ROOT, "INTERRUPTED (%s) at %s, %.3f s into the run:", i.reason(), i.at(),
          i.atNanos() / 1e9)));
      lines.add(fit(String.format(Locale.ROOT, "  %d completed, %d cancelled, %d never sent%s", i.completed(),
          i.cancelled(), i.notSent(), i.unknown() > 0 ? ", " + i.unknown() + " without a record" : "")));
    });
    warning(lines, s.clientHealth());
    for (String notice : io.infermark.metrics.ServerNotices.of(s)) {
      lines.add("");
      wrapped(lines, "WARNING:", notice, "  ");
    }
    lines.add("");
    lines.add(header());
    boolean marked = false;
    for (var e : s.distributions().entrySet()) {
      lines.add(row(e.getKey(), e.getValue()));
      marked |= hasMark(e.getValue());
    }
    if (marked) {
      lines.add(UNRELIABLE + " too few samples for this percentile (p99 needs 100, p99.9 needs 1000)");
    }
    if (s.coldStarts().cold() > 0) {
      // Warm and cold apart (seed 003 §3.3): the rows above mix them.
      lines.add("");
      lines.add(pad("cold start (ms)", NAME_WIDTH).stripTrailing());
      lines.add(row("TTFT warm", s.coldStarts().ttftWarm()));
      lines.add(row("TTFT cold", s.coldStarts().ttftCold()));
      lines.add(row("E2E warm", s.coldStarts().e2eWarm()));
      lines.add(row("E2E cold", s.coldStarts().e2eCold()));
    }
    lines.addAll(clientMinusServer(s));
    lines.addAll(prefixCache(s));
    lines.add("");
    wrap(lines, "Requests", requests(s.requests()));
    wrap(lines, "Window", window(s));
    wrap(lines, "Throughput", throughput(s));
    wrap(lines, "Tokens", tokens(s.tokens()));
    wrap(lines, "N from", sources(s.tokens()));
    wrap(lines, "Failures", failures(s));
    wrap(lines, "Schedule", schedule(s.schedule()));
    wrap(lines, "Send lag", lag(s.schedule()));
    wrap(lines, "Client", client(s.clientHealth()));
    return String.join("\n", lines) + "\n";
  }

  /**
   * The client − server rows (ms per request, see {@link io.infermark.metrics.ServerTimingGap}) under the metric
   * header, after a blank line; no lines when no server reported durations. {@code bench} prints the same lines.
   */
  public static List<String> clientMinusServer(RunSummary s) {
    List<String> lines = new ArrayList<>();
    if (s.clientMinusServer().isEmpty()) {
      return lines;
    }
    lines.add("");
    lines.add(pad("client-server (ms)", NAME_WIDTH).stripTrailing());
    for (var e : s.clientMinusServer().entrySet()) {
      lines.add(row(e.getKey().label(), e.getValue()));
    }
    return lines;
  }

  /**
   * The lines for what a {@link io.infermark.metrics.server.PrometheusScraper} collected: endpoint, interval,
   * successful, late and failed scrapes, then each series' samples, first, last, min, max and mean (server units).
   */
  public static List<String> serverMetrics(io.infermark.metrics.server.ScrapeReport report) {
    List<String> lines = new ArrayList<>();
    lines.add("");
    for (String line : ScrapeJson.lines(report)) {
      wrapped(lines, "", line, "    ");
    }
    return lines;
  }

  /** The most turns the prefix-cache lines list one by one; the JSON report has them all. */
  static final int MAX_TURN_LINES = 12;

  /**
   * The prefix-cache lines (see {@link io.infermark.metrics.cache.PrefixCacheSummary}): the hit ratio with its
   * tokens and how many requests reported, the ideal ratio beside it, TTFT rows of hits and misses (ms), and the
   * ratios per turn; no lines when no server reported cached tokens and no ideal was computed.
   */
  public static List<String> prefixCache(RunSummary s) {
    io.infermark.metrics.cache.PrefixCacheSummary c = s.prefixCache();
    List<String> lines = new ArrayList<>();
    if (c.isEmpty()) {
      return lines;
    }
    lines.add("");
    io.infermark.metrics.cache.PrefixCacheSummary.Group run = c.run();
    StringBuilder b = new StringBuilder("prefix cache: ");
    if (run.reporting() == 0) {
      b.append("no response reported cached prompt tokens");
    } else {
      b.append("hit ratio ").append(ratio(run.hitRatio())).append(String.format(Locale.ROOT,
          " (%d of %d prompt tokens cached; %d of %d requests reported, %d hit%s)", run.cachedTokens(),
          run.promptTokens(), run.reporting(), run.requests(), run.hits(), run.hits() == 1 ? "" : "s"));
    }
    if (c.idealTokenizer().isPresent()) {
      b.append(", ideal ").append(ratio(run.idealRatio())).append(" (shared prefixes of the prompts sent, by ")
          .append(c.idealTokenizer().get()).append(')');
    }
    wrapped(lines, "", b.toString().trim(), "  ");
    if (!c.ttftHit().isEmpty() || !c.ttftMiss().isEmpty()) {
      lines.add(row("TTFT cache hit", c.ttftHit()));
      lines.add(row("TTFT cache miss", c.ttftMiss()));
    }
    int shown = 0;
    for (var e : c.byTurn().entrySet()) {
      if (shown++ == MAX_TURN_LINES) {
        lines.add(fit("  ... " + (c.byTurn().size() - MAX_TURN_LINES) + " more turns in the JSON report"));
        break;
      }
      io.infermark.metrics.cache.PrefixCacheSummary.Group t = e.getValue();
      lines.add(fit(String.format(Locale.ROOT, "  turn %-4s %4d requests, hit ratio %s%s", e.getKey(), t.requests(),
          ratio(t.hitRatio()), c.idealTokenizer().isPresent() ? ", ideal " + ratio(t.idealRatio()) : "")));
    }
    if (!c.bySession().isEmpty()) {
      lines.add(fit("  " + c.bySession().size() + " sessions: per-session ratios in the JSON and HTML reports"));
    }
    return lines;
  }

  private static String ratio(OptionalDouble r) {
    return r.isPresent() ? String.format(Locale.ROOT, "%.1f %%", r.getAsDouble() * 100) : "-";
  }

  private static String header() {
    StringBuilder b = new StringBuilder(pad("metric (ms)", NAME_WIDTH));
    b.append(cell("count", false)).append(cell("mean", false));
    for (Percentile p : Percentile.values()) {
      b.append(cell(p.label(), false));
    }
    b.append(cell("max", false));
    return b.toString().stripTrailing();
  }

  private static String row(LatencyMetric m, Distribution d) {
    return row(m.name(), d);
  }

  private static String row(String name, Distribution d) {
    StringBuilder b = new StringBuilder(pad(name, NAME_WIDTH));
    b.append(cell(Integer.toString(d.count()), false)).append(cell(millis(d.mean()), false));
    for (Percentile p : Percentile.values()) {
      b.append(cell(millis(d.percentile(p.p())), !d.isEmpty() && d.isTailUnreliable(p.p())));
    }
    b.append(cell(millis(d.max()), false));
    return b.toString().stripTrailing();
  }

  /** A right-aligned value followed by its marker column. */
  private static String cell(String value, boolean unreliable) {
    return left(value, VALUE_WIDTH) + (unreliable ? UNRELIABLE : " ");
  }

  private static boolean hasMark(Distribution d) {
    if (d.isEmpty()) {
      return false;
    }
    for (Percentile p : Percentile.values()) {
      if (d.isTailUnreliable(p.p())) {
        return true;
      }
    }
    return false;
  }

  private static List<String> requests(RequestCounts c) {
    List<String> items = new ArrayList<>();
    items.add(c.scheduled() + " scheduled");
    if (c.warmupExcluded() > 0) {
      items.add(c.warmupExcluded() + " warmup excluded");
    }
    if (c.cooldownExcluded() > 0) {
      items.add(c.cooldownExcluded() + " cooldown excluded");
    }
    items.add(c.measured() + " measured");
    items.add(c.succeeded() + " succeeded" + (c.succeededWithoutTokens() > 0
        ? " (" + c.succeededWithoutTokens() + " without tokens)" : ""));
    items.add(c.failed() + " failed");
    return items;
  }

  private static List<String> window(RunSummary s) {
    return List.of(s.window()
        .map(w -> String.format(Locale.ROOT, "%.3f s from the first intended send to the last request end",
            w.durationSeconds()))
        .orElse("none: no measured request was sent"));
  }

  private static List<String> throughput(RunSummary s) {
    if (s.requestThroughputRps().isEmpty()) {
      return List.of("-");
    }
    List<String> items = new ArrayList<>();
    items.add(String.format(Locale.ROOT, "%.2f req/s", s.requestThroughputRps().getAsDouble()));
    items.add(String.format(Locale.ROOT, "%.1f output tok/s", s.outputTokenThroughputTps().getAsDouble()));
    int missing = s.tokens().requestsWithoutInputTokens();
    items.add(String.format(Locale.ROOT, "%.1f total tok/s%s", s.totalTokenThroughputTps().getAsDouble(),
        missing > 0 ? " (input unknown for " + missing + " requests)" : ""));
    return items;
  }

  private static List<String> tokens(TokenSummary t) {
    return List.of("mean input " + oneDecimal(t.meanInputTokens()) + (t.requestsWithClientInputTokens() == 0 ? ""
            : " (client count for " + t.requestsWithClientInputTokens() + ")"),
        "mean output " + oneDecimal(t.meanOutputTokens()),
        t.disagreements() + " server/stream count disagreement" + (t.disagreements() == 1 ? "" : "s"));
  }

  private static List<String> sources(TokenSummary t) {
    if (t.sources().isEmpty()) {
      return List.of("-");
    }
    List<String> items = new ArrayList<>();
    t.sources().forEach((k, v) -> items.add(k + " " + v));
    return items;
  }

  private static List<String> failures(RunSummary s) {
    List<String> items = new ArrayList<>();
    if (s.failuresByCategory().isEmpty()) {
      items.add("none");
    }
    s.failuresByCategory().forEach((k, v) -> items.add(k + " " + v));
    return items;
  }

  private static List<String> schedule(ScheduleStats st) {
    List<String> items = new ArrayList<>();
    if (st.requestedRate().isPresent()) {
      items.add(String.format(Locale.ROOT, "requested %.2f/s", st.requestedRate().getAsDouble()));
    }
    items.add(String.format(Locale.ROOT, "scheduled %.2f/s", st.scheduledRate()));
    items.add(String.format(Locale.ROOT, "achieved %.2f/s", st.achievedRate()));
    items.add(st.sent() + " sent" + (st.notSent() > 0 ? ", " + st.notSent() + " NOT SENT" : ""));
    return items;
  }

  /** Schedule lag over every sent measured request, failed ones included (the SCHEDULE_LAG row has successes only). */
  private static List<String> lag(ScheduleStats st) {
    return List.of("p50 " + millis(st.lagP50Nanos() / 1e6) + " ms", "p90 " + millis(st.lagP90Nanos() / 1e6) + " ms",
        "p99 " + millis(st.lagP99Nanos() / 1e6) + " ms", "p99.9 " + millis(st.lagP999Nanos() / 1e6) + " ms",
        "max " + millis(st.lagMaxNanos() / 1e6) + " ms");
  }

  /** A DEGRADED or CLIENT_BOUND run's warning: the verdict and floor, then each reason, word-wrapped. */
  private static void warning(List<String> lines, ClientHealth h) {
    if (!h.isWarning()) {
      return;
    }
    lines.add("");
    lines.add(fit(String.format(Locale.ROOT, "WARNING: client %s, differences below %s ms are client noise",
        h.verdict(), millis(h.floorMillis()))));
    if (h.isClientBound()) {
      lines.add("  The client could not keep up: these figures describe it as much as the server.");
    }
    for (String reason : h.reasons()) {
      wrapped(lines, "  -", reason, "    ");
    }
  }

  /**
   * {@code text} after {@code prefix} and a space, word-wrapped at the table's width; continuation lines start with
   * {@code indent}.
   */
  private static void wrapped(List<String> lines, String prefix, String text, String indent) {
    StringBuilder line = new StringBuilder(prefix);
    if (!prefix.isEmpty()) {
      line.append(' ');
    }
    boolean hasWord = false;
    for (String word : text.split(" ")) {
      if (hasWord && line.length() + 1 + word.length() > WIDTH) {
        lines.add(line.toString());
        line = new StringBuilder(indent);
        hasWord = false;
      }
      line.append(hasWord ? " " : "").append(word);
      hasWord = true;
    }
    lines.add(fit(line.toString()));
  }

  /** The client's health in short: verdict, floor, hiccups, CPU, GC and probes. */
  private static List<String> client(ClientHealth h) {
    List<String> items = new ArrayList<>();
    if (!h.isMeasured()) {
      items.add("unmeasured");
      return items;
    }
    items.add(h.verdict().name());
    items.add("floor " + millis(h.floorMillis()) + " ms");
    for (io.infermark.core.health.MetricBound b : h.bounds()) {
      items.add(String.format(Locale.ROOT, "%s bound %s ms = %s of p50, %s of p99", b.metric(),
          millis(b.boundNanos() / 1e6), percent(b.shareOfP50()), percent(b.shareOfP99())));
    }
    if (h.measurements().isEmpty()) {
      return items;
    }
    ClientMeasurements m = h.measurements().get();
    items.add(String.format(Locale.ROOT, "hiccup p50 %s p99 %s p99.9 %s max %s ms", millis(m.hiccup().p50Nanos() / 1e6),
        millis(m.hiccup().p99Nanos() / 1e6), millis(m.hiccup().p999Nanos() / 1e6), millis(m.hiccup().maxNanos() / 1e6)));
    m.cpu().coresUsed().ifPresent(c -> items.add(String.format(Locale.ROOT, "CPU %.2f of %d cores (%.0f %%)", c,
        m.cpu().availableProcessors(), m.cpu().shareOfCores().getAsDouble() * 100)));
    m.cpu().systemLoadAverage().ifPresent(l -> items.add(String.format(Locale.ROOT, "load average %.2f", l)));
    m.machine().busyShare().ifPresent(b -> items.add(String.format(Locale.ROOT, "machine %.0f %% busy", b * 100)));
    m.runQueue().waitPerRun().ifPresent(w -> items.add(String.format(Locale.ROOT,
        "run-queue wait %s ms per %s ms run (%.2f)", millis(m.runQueue().waitNanos() / 1e6),
        millis(m.runQueue().runNanos() / 1e6), w)));
    items.add(String.format(Locale.ROOT, "GC %d pause%s, total %s ms, max %s ms", m.gc().count(),
        m.gc().count() == 1 ? "" : "s", millis(m.gc().totalNanos() / 1e6), millis(m.gc().maxNanos() / 1e6)));
    for (ProbeReading p : m.probes()) {
      items.add(String.format(Locale.ROOT, "%s lag p99 %s ms", p.name(), millis(p.lateness().p99Nanos() / 1e6)));
    }
    return items;
  }

  /** A share as a percentage: 0.12 %, 1.2 %, 12 %; "all" for an infinite one. */
  private static String percent(double share) {
    if (!Double.isFinite(share)) {
      return "all";
    }
    double p = share * 100;
    return String.format(Locale.ROOT, p < 1 ? "%.2f %%" : p < 10 ? "%.1f %%" : "%.0f %%", p);
  }

  /** Appends "Label      item, item, ..." lines, continuing under the items when they do not fit. */
  private static void wrap(List<String> lines, String label, List<String> items) {
    StringBuilder line = new StringBuilder(pad(label, LABEL_WIDTH));
    boolean first = true;
    for (String item : items) {
      String piece = first ? item : ", " + item;
      if (!first && line.length() + piece.length() + 1 > WIDTH) { // + 1: the comma a continued line ends with
        lines.add(line.append(',').toString());
        line = new StringBuilder(" ".repeat(LABEL_WIDTH));
        piece = item;
      }
      line.append(piece);
      first = false;
    }
    lines.add(fit(line.toString()));
  }

  /** Milliseconds in at most {@value #VALUE_WIDTH} characters, keeping three decimals where they fit. */
  private static String millis(double ms) {
    double a = Math.abs(ms);
    if (a < 10_000) {
      return String.format(Locale.ROOT, "%.3f", ms);
    }
    if (a < 1_000_000) {
      return String.format(Locale.ROOT, "%.1f", ms);
    }
    if (a < 100_000_000) {
      return String.format(Locale.ROOT, "%.0f", ms);
    }
    return String.format(Locale.ROOT, "%.2e", ms);
  }

  private static String millis(OptionalDouble ms) {
    return ms.isPresent() ? millis(ms.getAsDouble()) : "-";
  }

  private static String oneDecimal(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.1f", v.getAsDouble()) : "-";
  }

  private static String pad(String s, int width) {
    return s.length() >= width ? s + " " : s + " ".repeat(width - s.length());
  }

  private static String left(String s, int width) {
    return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
  }

  private static String fit(String s) {
    return s.length() <= WIDTH ? s : s.substring(0, WIDTH - 1) + "…";
  }
}
