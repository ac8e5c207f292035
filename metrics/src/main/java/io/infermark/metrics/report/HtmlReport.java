package io.infermark.metrics.report;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.ClientMeasurements;
import io.infermark.core.health.ProbeReading;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.Percentile;
import io.infermark.metrics.PercentileInterval;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.server.ServerSeries;
import io.infermark.metrics.slo.SloReport;
import io.infermark.metrics.slo.SloSet;
import io.infermark.metrics.slo.SloVerdict;
import io.infermark.metrics.timeseries.IntervalStats;
import io.infermark.metrics.timeseries.LatencyCdf;
import io.infermark.metrics.timeseries.LatencyHeatmap;
import io.infermark.metrics.timeseries.TimeSeries;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;

/**
 * A single self-contained HTML file for people: the summary table with 95 % percentile intervals and
 * SLO verdicts, latency CDFs, the time series (throughput, concurrency, requests, latency over time,
 * and the server's own metrics when a {@link io.infermark.metrics.server.PrometheusScraper} collected
 * them), latency heatmaps over time, and, for a sweep, the latency–load curve. Charts are inline SVG;
 * there is no script and no network reference, so the file opens anywhere and can be attached to a
 * ticket. Every string that comes from a user, a model or a server (title, target, tags, response
 * text, error messages, series names) is HTML-escaped. A run whose client was DEGRADED or CLIENT_BOUND
 * opens with a banner giving the reasons and the measurement floor; a "Client health" section lists the
 * figures the verdict rests on.
 *
 * <pre>{@code
 * HtmlReport.builder(run).title("nightly").slo(SloPresets.chat()).serverSeries(scraper.series())
 *     .build().write(Path.of("report.html"));
 * }</pre>
 */
public final class HtmlReport extends HtmlDocument {

  private static final LatencyMetric[] TABLE_METRICS = {LatencyMetric.TTFT, LatencyMetric.TTFC, LatencyMetric.ITL,
      LatencyMetric.TPOT, LatencyMetric.NTPOT, LatencyMetric.E2E, LatencyMetric.TTFT_FROM_INTENDED,
      LatencyMetric.E2E_FROM_INTENDED};
  private static final LatencyMetric[] CDF_METRICS = {LatencyMetric.TTFT, LatencyMetric.ITL, LatencyMetric.TPOT,
      LatencyMetric.E2E};

  private HtmlReport(String html) {
    super(html, "the HTML report");
  }

  /** A report of a run that kept its records: every section is available. */
  public static Builder builder(RunResult run) {
    Objects.requireNonNull(run, "run");
    return new Builder(RunSummary.of(run), Optional.of(run));
  }

  /**
   * A report of a run that kept its records, with the caller's summary of it (for example one with
   * {@link RunSummary#withPromptReuse} or another percentile method): every section is available.
   */
  public static Builder builder(RunResult run, RunSummary summary) {
    Objects.requireNonNull(run, "run");
    return new Builder(Objects.requireNonNull(summary, "summary"), Optional.of(run));
  }

  /** A report of a summary alone (a streaming run, a sweep): no time series, heatmaps or samples. */
  public static Builder builder(RunSummary summary) {
    return new Builder(Objects.requireNonNull(summary, "summary"), Optional.empty());
  }

  /** Builds an {@link HtmlReport}. */
  public static final class Builder {
    private final RunSummary summary;
    private final Optional<RunResult> run;
    private String title = "infermark report";
    private Optional<SloReport> slo = Optional.empty();
    private Optional<SloSet> sloSet = Optional.empty();
    private List<ServerSeries> server = List.of();
    private Optional<io.infermark.metrics.server.ScrapeReport> scrape = Optional.empty();
    private List<LoadCurvePoint> sweep = List.of();
    private final List<Knee> knees = new ArrayList<>();
    private Duration interval = TimeSeries.DEFAULT_INTERVAL;
    private int samples = 5;

    private Builder(RunSummary summary, Optional<RunResult> run) {
      this.summary = summary;
      this.run = run;
    }

    /** The page title; "infermark report" by default. */
    public Builder title(String title) {
      this.title = Objects.requireNonNull(title, "title");
      return this;
    }

    /** SLO verdicts already computed. */
    public Builder slo(SloReport report) {
      this.slo = Optional.of(Objects.requireNonNull(report, "report"));
      return this;
    }

    /**
     * SLOs to evaluate against the run.
     *
     * @throws IllegalStateException if the report was built from a summary alone (goodput needs records)
     */
    public Builder slo(SloSet set) {
      if (run.isEmpty()) {
        throw new IllegalStateException("evaluating an SLO set needs the run's records; pass an SloReport instead");
      }
      this.sloSet = Optional.of(Objects.requireNonNull(set, "set"));
      return this;
    }

    /**
     * What a scraper collected during the run: a "Server metrics" table (scrape counts, each series' figures) and
     * the series charted on the run's time axis (as {@link #serverSeries}).
     */
    public Builder scrape(io.infermark.metrics.server.ScrapeReport report) {
      this.scrape = Optional.of(Objects.requireNonNull(report, "report"));
      return serverSeries(report.series());
    }

    /** Server metrics to chart on the run's time axis. */
    public Builder serverSeries(List<ServerSeries> series) {
      this.server = List.copyOf(series);
      return this;
    }

    /** Levels of a sweep for the latency–load curve, in order of load. */
    public Builder sweep(List<LoadCurvePoint> points) {
      this.sweep = List.copyOf(points);
      return this;
    }

    /**
     * Marks a knee on the latency–load curve of {@link #sweep}: a vertical line at {@code offeredLoad} named
     * {@code name} (e.g. "Kneedle knee: 8 req/s"); repeatable.
     *
     * @throws IllegalArgumentException if the load is not finite
     */
    public Builder knee(String name, double offeredLoad) {
      Objects.requireNonNull(name, "name");
      if (!Double.isFinite(offeredLoad)) {
        throw new IllegalArgumentException("offeredLoad must be finite, was " + offeredLoad);
      }
      knees.add(new Knee(name, offeredLoad));
      return this;
    }

    /** The time series and heatmap interval; 1 s by default. */
    public Builder interval(Duration interval) {
      this.interval = Objects.requireNonNull(interval, "interval");
      return this;
    }

    /**
     * How many sample responses (with captured text) and failures to show; 5 by default.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder samples(int count) {
      if (count < 0) {
        throw new IllegalArgumentException("samples must be >= 0, was " + count);
      }
      this.samples = count;
      return this;
    }

    /** Renders the report. */
    public HtmlReport build() {
      Optional<SloReport> verdicts = slo.isPresent() ? slo : sloSet.map(s -> s.evaluate(run.get(), summary));
      StringBuilder b = new StringBuilder(64 * 1024);
      HtmlPage.open(b, title);
      b.append("<p class='meta'>").append(Html.escape(summary.run().target())).append(" &middot; started ")
          .append(Html.escape(summary.run().startedAt().toString())).append(" &middot; ")
          .append(Html.escape(summary.run().load().toString())).append("</p>");
      if (summary.run().insecureTls()) {
        b.append("<div class='banner bound' role='alert'><strong>Insecure TLS</strong>: ")
            .append(Html.escape(io.infermark.metrics.RunInfo.INSECURE_TLS_WARNING)).append("</div>");
      }
      summary.run().interruption().ifPresent(i -> b.append("<div class='banner bound' role='alert'><strong>")
          .append("Interrupted</strong>: ").append(Html.escape(i.summary())).append("</div>"));
      clientBanner(b, summary.clientHealth());
      for (String notice : io.infermark.metrics.ServerNotices.of(summary)) {
        b.append("<div class='banner' role='alert'><strong>Server</strong>: ").append(Html.escape(notice))
            .append("</div>");
      }
      headline(b, summary, verdicts);
      b.append("<h2>Latency</h2>");
      latencyTable(b, summary);
      ServerSideHtml.clientMinusServer(b, summary);
      ServerSideHtml.prefixCache(b, summary);
      scrape.ifPresent(r -> ServerSideHtml.serverMetrics(b, r));
      verdicts.ifPresent(v -> sloTable(b, v));
      clientSection(b, summary.clientHealth());
      SessionsHtml.section(b, summary.sessions());
      b.append("<h2>Latency CDFs</h2><div class='charts'>");
      List<Charts.Line> cdfs = new ArrayList<>();
      for (LatencyMetric m : CDF_METRICS) {
        LatencyCdf cdf = LatencyCdf.of(summary.distribution(m));
        cdfs.add(new Charts.Line(m.name(), cdf.points().stream().mapToDouble(LatencyCdf.Point::millis).toArray(),
            cdf.points().stream().mapToDouble(LatencyCdf.Point::fraction).toArray(), false));
      }
      b.append(Charts.lineChart("Cumulative distribution", "latency (ms, log scale)", "fraction ≤ x", cdfs,
          true, 1.0));
      b.append("</div>");
      if (run.isPresent()) {
        timeSeries(b, TimeSeries.of(run.get(), interval), server);
        b.append("<h2>Latency over time</h2><div class='charts'>");
        b.append(Charts.heatmap("TTFT heatmap", LatencyHeatmap.of(run.get().records(), LatencyMetric.TTFT, interval,
            10)));
        b.append(Charts.heatmap("E2E heatmap", LatencyHeatmap.of(run.get().records(), LatencyMetric.E2E, interval,
            10)));
        b.append("</div>");
        timelineSection(b, run.get());
      } else if (!server.isEmpty()) {
        b.append("<h2>Server metrics</h2><div class='charts'>");
        serverCharts(b, server);
        b.append("</div>");
      }
      if (!sweep.isEmpty()) {
        sweepSection(b, sweep, knees);
      }
      if (run.isPresent() && samples > 0) {
        samplesSection(b, run.get(), samples);
      }
      b.append("<p class='foot'>Percentiles are exact (").append(Html.escape(summary.quantileMethod().name()
          .toLowerCase(Locale.ROOT))).append("); [lo, hi] is a distribution-free 95 % interval, – where too few "
          + "values allow none; * marks a percentile resting on too few samples. Generated by infermark.</p>");
      HtmlPage.close(b);
      return new HtmlReport(b.toString());
    }
  }

  private static void headline(StringBuilder b, RunSummary s, Optional<SloReport> verdicts) {
    b.append("<div class='cards'>");
    card(b, "requests", s.requests().succeeded() + " / " + s.requests().measured() + " ok");
    card(b, "failed", Integer.toString(s.requests().failed()));
    card(b, "request throughput", rate(s.requestThroughputRps(), "req/s"));
    card(b, "output throughput", rate(s.outputTokenThroughputTps(), "tok/s"));
    card(b, "TTFT p99", ms(s.distribution(LatencyMetric.TTFT).p99()));
    card(b, "E2E p99", ms(s.distribution(LatencyMetric.E2E).p99()));
    ClientHealth health = s.clientHealth();
    card(b, "client", health.isMeasured() ? health.verdict().name().toLowerCase(Locale.ROOT).replace('_', ' ')
        + ", floor " + Charts.fmt(health.floorMillis()) + " ms" : "unmeasured");
    verdicts.ifPresent(v -> {
      card(b, "SLOs", v.allPassed() ? "all passed" : "failed");
      card(b, "goodput", rate(v.goodput().goodputRps(), "req/s"));
    });
    b.append("</div>");
    if (!s.failuresByCategory().isEmpty()) {
      b.append("<p>Failures: ");
      List<String> parts = new ArrayList<>();
      s.failuresByCategory().forEach((k, v) -> parts.add(Html.escape(k.name().toLowerCase(Locale.ROOT)) + " " + v));
      b.append(String.join(", ", parts)).append("</p>");
    }
  }

  /** A visible warning at the top of a DEGRADED or CLIENT_BOUND run's report. */
  private static void clientBanner(StringBuilder b, ClientHealth h) {
    if (!h.isWarning()) {
      return;
    }
    b.append("<div class='banner").append(h.isClientBound() ? " bound" : "").append("' role='alert'><strong>Client ")
        .append(h.verdict().name().replace('_', ' ')).append("</strong>: ")
        .append(h.isClientBound() ? "the client could not keep up; these figures describe the client as much as "
            + "the server. Do not compare or judge them." : "the client was noisy or busy; differences below the "
            + "floor are its own.")
        .append(" Measurement floor ").append(Html.escape(Charts.fmt(h.floorMillis()))).append(" ms.<ul>");
    for (String reason : h.reasons()) {
      b.append("<li>").append(Html.escape(reason)).append("</li>");
    }
    b.append("</ul></div>");
  }

  /** The figures the client verdict rests on. */
  private static void clientSection(StringBuilder b, ClientHealth h) {
    b.append("<h2>Client health</h2>");
    if (!h.isMeasured()) {
      b.append("<p class='meta'>Not measured: this result was built by hand, merged or read back.</p>");
      return;
    }
    b.append("<p>").append(Html.escape(h.verdict().name())).append(" &middot; measurement floor ")
        .append(Html.escape(Charts.fmt(h.floorMillis()))).append(" ms (the largest of hiccup p99, longest GC pause, "
            + "probe p99s and open-loop send lag p99: latency differences below it are client noise)</p>");
    if (h.measurements().isEmpty()) {
      return;
    }
    ClientMeasurements m = h.measurements().get();
    b.append("<table><thead><tr><th>figure</th><th>value</th></tr></thead><tbody>");
    row(b, "hiccup p50 / p99 / p99.9 / max (ms)", Charts.fmt(m.hiccup().p50Nanos() / 1e6) + " / "
        + Charts.fmt(m.hiccup().p99Nanos() / 1e6) + " / " + Charts.fmt(m.hiccup().p999Nanos() / 1e6) + " / "
        + Charts.fmt(m.hiccup().maxNanos() / 1e6));
    m.cpu().coresUsed().ifPresent(c -> row(b, "process CPU", String.format(Locale.ROOT, "%.2f of %d cores (%.0f %%)",
        c, m.cpu().availableProcessors(), m.cpu().shareOfCores().getAsDouble() * 100)));
    m.cpu().systemLoadAverage().ifPresent(l -> row(b, "system load average (1 min)", Charts.fmt(l)));
    m.runQueue().waitPerRun().ifPresent(w -> row(b, "client threads: waited for a core / ran (ms)",
        Charts.fmt(m.runQueue().waitNanos() / 1e6) + " / " + Charts.fmt(m.runQueue().runNanos() / 1e6)
        + String.format(Locale.ROOT, " (%.2f)", w)));
    row(b, "GC pauses: count / total / max (ms)", m.gc().count() + " / " + Charts.fmt(m.gc().totalNanos() / 1e6)
        + " / " + Charts.fmt(m.gc().maxNanos() / 1e6));
    if (m.sends().judged()) {
      row(b, "send lag p99 (ms)", Charts.fmt(m.sends().lagP99Nanos() / 1e6));
      m.sends().achievedRatio().ifPresent(r -> row(b, "achieved / scheduled rate", String.format(Locale.ROOT,
          "%.2f / %.2f req/s (%.1f %%)", m.sends().achievedRate(), m.sends().scheduledRate().getAsDouble(), r * 100)));
    }
    for (ProbeReading p : m.probes()) {
      row(b, p.name() + " lag p99 / max (ms)", Charts.fmt(p.lateness().p99Nanos() / 1e6) + " / "
          + Charts.fmt(p.lateness().maxNanos() / 1e6));
    }
    m.machine().busyShare().ifPresent(busy -> row(b, "machine's cores busy (all processes)",
        String.format(Locale.ROOT, "%.0f %%", busy * 100)));
    for (io.infermark.core.health.MetricBound e : h.bounds()) {
      row(b, e.metric() + ": error bound / p50 / p99 (ms)", Charts.fmt(e.boundNanos() / 1e6) + " / "
          + Charts.fmt(e.p50Nanos() / 1e6) + " / " + Charts.fmt(e.p99Nanos() / 1e6) + String.format(Locale.ROOT,
          " (%.2g %% of p50)", e.shareOfP50() * 100));
    }
    b.append("</tbody></table>");
  }

  private static void row(StringBuilder b, String label, String value) {
    b.append("<tr><td>").append(Html.escape(label)).append("</td><td>").append(Html.escape(value)).append("</td></tr>");
  }

  private static void card(StringBuilder b, String label, String value) {
    HtmlPage.card(b, label, value);
  }

  private static void latencyTable(StringBuilder b, RunSummary s) {
    b.append("<table><thead><tr><th>metric (ms)</th><th>count</th><th>mean</th>");
    for (Percentile p : Percentile.values()) {
      b.append("<th>").append(p.label()).append("</th>");
    }
    b.append("<th>max</th><th>P99 95 % interval</th><th>tail</th></tr></thead><tbody>");
    for (LatencyMetric m : TABLE_METRICS) {
      Distribution d = s.distribution(m);
      b.append("<tr><td title='").append(Html.escape(m.definition())).append("'>").append(m.name()).append("</td><td>")
          .append(d.count()).append("</td><td>").append(num(d.mean())).append("</td>");
      for (Percentile p : Percentile.values()) {
        boolean unreliable = !d.isEmpty() && d.isTailUnreliable(p.p());
        b.append("<td>").append(num(d.percentile(p.p()))).append(unreliable ? "<span class='warn'>*</span>" : "")
            .append("</td>");
      }
      b.append("<td>").append(num(d.max())).append("</td>");
      PercentileInterval i = d.percentileInterval(0.99, 0.95);
      b.append("<td>").append(i.isFormed() ? "[" + num(i.lowerMillis()) + ", " + num(i.upperMillis()) + "]" : "–")
          .append("</td><td>");
      if (!m.isPooled() && !d.isEmpty()) {
        b.append(tailCell(d.tailDiagnostics()));
      }
      b.append("</td></tr>");
    }
    b.append("</tbody></table>");
  }

  /**
   * The tail column: "P99 unstable" only where P99's interval says so (formed, and wider than half of P99); too
   * few values for an interval, or a heavy tail alone, is a muted note, not a warning.
   */
  static String tailCell(io.infermark.metrics.TailDiagnostics t) {
    var p99 = t.p99();
    if (!p99.isFormed()) {
      return "<span class='muted' title='" + Html.escape(String.join("; ", t.reasons())) + "'>no interval (n &lt; 368)"
          + "</span>";
    }
    boolean wide = p99.estimateMillis().getAsDouble() > 0
        && p99.widthMillis().getAsDouble() > io.infermark.metrics.TailDiagnostics.MAX_RELATIVE_WIDTH
            * p99.estimateMillis().getAsDouble();
    if (wide) {
      return "<span class='warn' title='" + Html.escape(String.join("; ", t.reasons())) + "'>P99 unstable</span>";
    }
    return t.hill().isPresent() && t.hill().get().alpha() < io.infermark.metrics.TailDiagnostics.MIN_TAIL_INDEX
        ? "<span class='muted' title='" + Html.escape(String.join("; ", t.reasons())) + "'>stable, heavy tail</span>"
        : "stable";
  }

  private static void sloTable(StringBuilder b, SloReport r) {
    b.append("<h2>SLOs: ").append(Html.escape(r.name())).append("</h2><table><thead><tr><th>objective</th>"
        + "<th>verdict</th><th>measured</th><th>margin</th><th>note</th></tr></thead><tbody>");
    for (SloVerdict v : r.verdicts()) {
      String cls = v.outcome() == SloVerdict.Outcome.PASS ? "pass" : v.outcome() == SloVerdict.Outcome.FAIL ? "fail"
          : "nodata";
      b.append("<tr><td>").append(Html.escape(v.slo().name())).append("</td><td><span class='badge ").append(cls)
          .append("'>").append(v.outcome().name().replace('_', ' ')).append("</span></td><td>")
          .append(num(v.measured())).append(' ').append(Html.escape(v.unit())).append("</td><td>")
          .append(v.margin().isPresent() ? String.format(Locale.ROOT, "%+.4g", v.margin().getAsDouble()) : "–")
          .append("</td><td class='t'>").append(Html.escape(v.note())).append("</td></tr>");
    }
    b.append("</tbody></table><p>Goodput: ").append(r.goodput().met()).append(" of ").append(r.goodput().measured())
        .append(" requests met every per-request objective (").append(Html.escape(rate(r.goodput().goodputRps(),
            "req/s"))).append(").</p>");
  }

  private static void timeSeries(StringBuilder b, TimeSeries t, List<ServerSeries> server) {
    List<IntervalStats> rows = t.intervals();
    double[] x = rows.stream().mapToDouble(r -> r.startNanos() / 1e9).toArray();
    b.append("<h2>Time series</h2><p class='meta'>").append(rows.size()).append(" intervals of ")
        .append(Charts.fmt(t.intervalNanos() / 1e9)).append(" s; exact peaks: ")
        .append((int) t.peakConcurrency().value()).append(" in flight, ")
        .append(Charts.fmt(t.peakOutputTokensPerSecond().value())).append(" output tok/s</p><div class='charts'>");
    b.append(Charts.lineChart("Output throughput", "time (s)", "tokens/s", List.of(
        line("output tok/s", x, rows, IntervalStats::outputTokensPerSecond)), false));
    b.append(Charts.lineChart("Requests in flight", "time (s)", "requests", List.of(
        line("mean", x, rows, IntervalStats::meanInFlight), line("max", x, rows, r -> (double) r.maxInFlight())),
        false));
    double perSecond = 1e9 / t.intervalNanos();
    b.append(Charts.lineChart("Requests per second", "time (s)", "requests/s", List.of(
        line("started", x, rows, r -> r.started() * perSecond), line("completed", x, rows,
            r -> r.completed() * perSecond), line("failed", x, rows, r -> r.failed() * perSecond)), false));
    b.append(Charts.lineChart("TTFT over time", "time (s)", "ms", List.of(
        line("p50", x, rows, r -> or(r.ttft().p50())), line("p99", x, rows, r -> or(r.ttft().p99()))), false));
    b.append(Charts.lineChart("ITL over time", "time (s)", "ms", List.of(
        line("p50", x, rows, r -> or(r.itl().p50())), line("p99", x, rows, r -> or(r.itl().p99()))), false));
    b.append(Charts.lineChart("E2E over time", "time (s)", "ms", List.of(
        line("p50", x, rows, r -> or(r.e2e().p50())), line("p99", x, rows, r -> or(r.e2e().p99()))), false));
    serverCharts(b, server);
    b.append("</div>");
  }

  private static void serverCharts(StringBuilder b, List<ServerSeries> server) {
    for (ServerSeries s : server) {
      double[] sx = new double[s.size()];
      double[] sy = new double[s.size()];
      for (int i = 0; i < s.size(); i++) {
        sx[i] = s.timeNanos(i) / 1e9;
        sy[i] = s.value(i);
      }
      b.append(Charts.lineChart("server: " + s.name(), "time (s)", "value", List.of(
          new Charts.Line(s.name(), sx, sy, s.size() < 60)), false));
    }
  }

  private static double or(OptionalDouble v) {
    return v.isPresent() ? v.getAsDouble() : Double.NaN;
  }

  private static Charts.Line line(String name, double[] x, List<IntervalStats> rows,
      Function<IntervalStats, Double> f) {
    return new Charts.Line(name, x, rows.stream().mapToDouble(f::apply).toArray(), false);
  }

  /** The request timeline, as vLLM's {@code --plot-timeline} draws one. */
  static void timelineSection(StringBuilder b, RunResult run) {
    timelineSection(b, run, new double[0]);
  }

  /** The request timeline, decoding coloured by inter-token gap when two ITL thresholds (ms) are given. */
  static void timelineSection(StringBuilder b, RunResult run, double[] itlThresholdsMillis) {
    long sent = run.records().stream().filter(RequestRecord::wasSent).count();
    b.append("<h2>Request timeline</h2><p class='meta'>One bar per request by send time: light from its send to its "
        + "first token, ").append(itlThresholdsMillis.length == 2 ? "then each inter-token gap green below "
            + Charts.fmt(itlThresholdsMillis[0]) + " ms, orange up to " + Charts.fmt(itlThresholdsMillis[1])
            + " ms, red above" : "dark while it decoded").append(", red when it failed. Drag to zoom, double-click "
            + "to reset; hover for the request's times.").append(sent > Charts.TIMELINE_MAX_REQUESTS ? " The first " + Charts.TIMELINE_MAX_REQUESTS
            + " of " + sent + " requests sent." : "").append("</p>");
    b.append(Charts.timeline("Requests over time", run.records(), itlThresholdsMillis));
  }

  /** A knee marked on the latency–load curve. */
  record Knee(String name, double offeredLoad) {}

  static void sweepSection(StringBuilder b, List<LoadCurvePoint> sweep, List<Knee> knees) {
    double[] x = sweep.stream().mapToDouble(LoadCurvePoint::offeredLoad).toArray();
    b.append("<h2>Latency–load curve</h2>");
    for (Knee k : knees) {
      b.append("<p class='knee'>").append(Html.escape(k.name())).append("</p>");
    }
    b.append("<div class='charts'>");
    List<Charts.Line> lines = List.of(
        sweepLine("E2E p50", x, sweep, LatencyMetric.E2E, 0.5), sweepLine("E2E p99", x, sweep, LatencyMetric.E2E, 0.99),
        sweepLine("TTFT p99", x, sweep, LatencyMetric.TTFT, 0.99));
    List<Charts.Mark> marks = knees.stream().map(k -> new Charts.Mark(k.name(), k.offeredLoad())).toList();
    b.append(Charts.lineChart("Latency vs offered load", "offered load", "ms", lines, false, Double.NaN, marks));
    b.append(Charts.lineChart("Throughput vs offered load", "offered load", "req/s", List.of(
        new Charts.Line("achieved req/s", x, sweep.stream().mapToDouble(p -> or(p.summary().requestThroughputRps()))
            .toArray(), true)), false));
    b.append("</div><table><thead><tr><th>level</th><th>offered</th><th>req/s</th><th>TTFT p99</th><th>E2E p50</th>"
        + "<th>E2E p99</th><th>failed</th><th>client</th></tr></thead><tbody>");
    for (LoadCurvePoint p : sweep) {
      RunSummary s = p.summary();
      b.append("<tr><td>").append(Html.escape(p.label())).append("</td><td>").append(Charts.fmt(p.offeredLoad()))
          .append("</td><td>").append(num(s.requestThroughputRps())).append("</td><td>")
          .append(num(s.distribution(LatencyMetric.TTFT).p99())).append("</td><td>")
          .append(num(s.distribution(LatencyMetric.E2E).p50())).append("</td><td>")
          .append(num(s.distribution(LatencyMetric.E2E).p99())).append("</td><td>").append(s.requests().failed())
          .append("</td><td class='t'>").append(clientCell(s.clientHealth())).append("</td></tr>");
    }
    b.append("</tbody></table>");
  }

  /** A sweep level's client verdict, its reasons in a tooltip when it warns. */
  private static String clientCell(ClientHealth h) {
    String verdict = Html.escape(h.verdict().name().toLowerCase(Locale.ROOT).replace('_', ' '));
    return h.isWarning() ? "<span class='warn' title='" + Html.escape(h.reasonText()) + "'>" + verdict + "</span>"
        : verdict;
  }

  private static Charts.Line sweepLine(String name, double[] x, List<LoadCurvePoint> sweep, LatencyMetric m,
      double p) {
    return new Charts.Line(name, x, sweep.stream().mapToDouble(s -> or(s.summary().distribution(m).percentile(p)))
        .toArray(), true);
  }

  private static void samplesSection(StringBuilder b, RunResult run, int max) {
    List<RequestRecord> withText = new ArrayList<>();
    List<RequestRecord> failed = new ArrayList<>();
    for (RequestRecord r : run.records()) {
      if (!r.measured()) {
        continue;
      }
      if (r.succeeded() && r.text().isPresent() && withText.size() < max) {
        withText.add(r);
      } else if (!r.succeeded() && failed.size() < max) {
        failed.add(r);
      }
    }
    if (!withText.isEmpty()) {
      b.append("<h2>Sample responses</h2>");
      for (RequestRecord r : withText) {
        b.append("<div class='sample'><div class='meta'>#").append(r.index()).append(' ').append(tags(r))
            .append("</div><pre>").append(Html.escape(clip(r.text().get()))).append("</pre></div>");
      }
    }
    if (!failed.isEmpty()) {
      b.append("<h2>Sample failures</h2><table><thead><tr><th>#</th><th>tags</th><th>category</th><th>message</th>"
          + "</tr></thead><tbody>");
      for (RequestRecord r : failed) {
        var f = r.failure().get();
        b.append("<tr><td>").append(r.index()).append("</td><td class='t'>").append(tags(r))
            .append("</td><td class='t'>")
            .append(Html.escape(f.category().name().toLowerCase(Locale.ROOT))).append("</td><td class='t'>")
            .append(Html.escape(f.message())).append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
  }

  private static String tags(RequestRecord r) {
    List<String> parts = new ArrayList<>();
    r.tags().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
        .forEach(e -> parts.add(Html.escape(e.getKey()) + "=" + Html.escape(e.getValue())));
    return String.join(" ", parts);
  }

  private static String clip(String text) {
    return text.length() <= 2000 ? text : text.substring(0, 2000) + " …";
  }

  private static String num(OptionalDouble v) {
    return v.isPresent() ? Charts.fmt(v.getAsDouble()) : "–";
  }

  private static String ms(OptionalDouble v) {
    return v.isPresent() ? Charts.fmt(v.getAsDouble()) + " ms" : "–";
  }

  private static String rate(OptionalDouble v, String unit) {
    return v.isPresent() ? Charts.fmt(v.getAsDouble()) + " " + unit : "–";
  }
}
