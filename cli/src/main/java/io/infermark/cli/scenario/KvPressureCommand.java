package io.infermark.cli.scenario;

import io.infermark.cli.options.DurationText;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.protocol.Target;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.metrics.report.HtmlReport;
import io.infermark.metrics.server.PrometheusScraper;
import io.infermark.metrics.server.ServerEvents;
import io.infermark.metrics.server.ServerSeries;
import io.infermark.perturbation.scenario.KvPressureKit;
import io.infermark.perturbation.scenario.KvPressureVerdict;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code infermark scenario kv-pressure}: seed 003 §2.4, {@link KvPressureKit}, with server events on records. */
@Command(name = "kv-pressure", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Seed 003 §2.4, KV-cache memory pressure: a grid of context lengths x concurrencies, cell by cell, "
        + "while the server's Prometheus metrics are scraped. Each cell falls in a quadrant: memory high when its "
        + "peak KV usage (vllm:kv_cache_usage_perc) reaches --memory-threshold, latency high when its P99 TTFT "
        + "exceeds --ttft-p99-limit or requests failed. The preemption onset is the first cell whose "
        + "vllm:num_preemptions_total rose; each rise lands on the requests it overlaps as a server event.",
        "Passes when no cell preempted and none is SCALE_OUT. The HTML report charts the onset cell's (else the "
            + "last cell's) scraped series."})
final class KvPressureCommand extends KitCommand {

  @Option(names = "--contexts", split = ",", paramLabel = "TOKENS", defaultValue = "512,2048,8192",
      description = "Prompt lengths, tokens (default: ${DEFAULT-VALUE}).")
  int[] contexts;

  @Option(names = "--concurrencies", split = ",", paramLabel = "N", defaultValue = "1,8,32",
      description = "Concurrent streams (default: ${DEFAULT-VALUE}).")
  int[] concurrencies;

  @Option(names = "--requests-per-stream", defaultValue = "4", description = "Requests each stream sends in a cell "
      + "(default: ${DEFAULT-VALUE}).")
  int requestsPerStream;

  @Option(names = "--memory-threshold", defaultValue = "0.75", description = "KV usage, 0 to 1, from which a cell "
      + "is memory-bound (default: ${DEFAULT-VALUE}, seed 003 §2.4's base value of its 60-85 %% gradient).")
  double memoryThreshold;

  @Option(names = "--ttft-p99-limit", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "120ms",
      description = "P99 TTFT above which a cell is latency-bound (default: ${DEFAULT-VALUE}, seed 003 §2.4's base "
          + "latency threshold, which the seed states as P95 inference latency).")
  Duration ttftLimit;

  @Option(names = "--max-failure-rate", defaultValue = "0", description = "Failure share a cell may have, in [0, 1) "
      + "(default: ${DEFAULT-VALUE}).")
  double maxFailureRate;

  @Option(names = "--metrics-url", paramLabel = "URL",
      description = "The server's Prometheus endpoint (default: the server's root + /metrics).")
  String metricsUrl;

  @Option(names = "--scrape-interval", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "100ms",
      description = "Time between scrapes (default: ${DEFAULT-VALUE}).")
  Duration scrapeInterval;

  static final String KV = "vllm:kv_cache_usage_perc";
  static final String PREEMPTIONS = "vllm:num_preemptions_total";
  static final String FRAGMENTATION = "infermark_sim:kv_cache_fragmentation_perc";

  @Override
  int defaultOutputLen() {
    return 256;
  }

  private KvPressureKit kit() {
    return KvPressureKit.builder(TokenCounter.estimate()).contexts(contexts).concurrencies(concurrencies)
        .requestsPerStream(requestsPerStream).memoryThreshold(memoryThreshold).p99TtftLimit(ttftLimit)
        .maxFailureRate(maxFailureRate).build();
  }

  @Override
  void validate() {
    kit();
  }

  @Override
  Outcome execute(PrintWriter out, PrintWriter err) {
    KvPressureKit kit = kit();
    String url = metricsUrl != null ? metricsUrl : target.root() + "/metrics";
    List<KvPressureKit.Readings> readings = new ArrayList<>();
    List<RequestRecord> all = new ArrayList<>();
    RunResult onset = null;
    List<ServerSeries> onsetSeries = List.of();
    RunResult last = null;
    List<ServerSeries> lastSeries = List.of();
    int annotated = 0;
    List<String> examples = new ArrayList<>();
    try (Target t = target.build()) {
      for (KvPressureKit.Point p : kit.points()) {
        try (PrometheusScraper scraper = PrometheusScraper.builder(url).interval(scrapeInterval).series(KV)
            .series(PREEMPTIONS).series(FRAGMENTATION).build()) {
          RunResult run = Benchmark.target(t).prompts(kit.prompts(p)).params(params()).load(kit.load(p))
              .listener(scraper).run();
          scraper.scrapeOnce(); // the counters' final values
          List<ServerSeries> series = scraper.series();
          ServerSeries pre = series.get(1);
          double preemptions = pre.size() == 0 ? 0 : pre.latest().orElse(0) - pre.value(0);
          if (pre.size() == 0 && series.get(0).size() == 0) {
            throw new IllegalStateException(url + " gave neither " + KV + " nor " + PREEMPTIONS + " ("
                + scraper.failedScrapes() + " failed scrapes): give the server's Prometheus endpoint with "
                + "--metrics-url");
          }
          readings.add(new KvPressureKit.Readings(p, run.measured(), series.get(0).max().orElse(0), preemptions,
              series.get(2).max().orElse(Double.NaN)));
          ServerEvents events = ServerEvents.of(series);
          RunResult tagged = run.toBuilder().records(events.tag(run.records())).build();
          for (RequestRecord r : tagged.measured()) {
            String e = r.tags().get(ServerEvents.TAG);
            if (e != null) {
              annotated++;
              if (examples.size() < 3) {
                examples.add("  request " + r.index() + " of " + p.contextTokens() + " x " + p.concurrency() + ": "
                    + e);
              }
            }
          }
          all.addAll(tagged.measured());
          if (onset == null && preemptions > 0) {
            onset = tagged;
            onsetSeries = series;
          }
          last = tagged;
          lastSeries = series;
        }
      }
    }
    requireASuccess(all);
    KvPressureVerdict v = kit.verdict(readings);
    List<String> lines = new ArrayList<>(v.table().lines().toList());
    lines.add(v.preemptionOnset().map(c -> "preemption onset: " + c.contextTokens() + " tokens x " + c.concurrency()
        + " streams").orElse("no preemption"));
    lines.add(String.format(Locale.ROOT, "requests with a server event: %d of %d", annotated, all.size()));
    lines.addAll(examples);
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("metrics_url", url.replaceAll("//[^/@]*@", "//***@"));
    extra.put("requests_with_server_events", annotated);
    RunResult page = onset != null ? onset : last;
    List<ServerSeries> pageSeries = onset != null ? onsetSeries : lastSeries;
    String title = v.preemptionOnset().map(c -> "KV pressure: onset at " + c.contextTokens() + " tokens x "
        + c.concurrency() + " streams").orElse("KV pressure: last cell, no preemption");
    return new Outcome(v.pass(), v, lines, extra, Optional.of(file ->
        HtmlReport.builder(page).title(title).serverSeries(pageSeries).build().write(file))).withRecords(all);
  }
}
