package io.infermark.metrics.report;

import static io.infermark.metrics.report.JsonFields.counts;
import static io.infermark.metrics.report.JsonFields.lower;
import static io.infermark.metrics.report.JsonFields.number;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.load.LoadProfile;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.MeasurementWindow;
import io.infermark.metrics.Percentile;
import io.infermark.metrics.PercentileInterval;
import io.infermark.metrics.RequestCounts;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TailDiagnostics;
import io.infermark.metrics.TokenSummary;
import io.infermark.metrics.slo.SloReport;
import io.infermark.metrics.slo.SloVerdict;
import io.infermark.metrics.timeseries.TimeSeries;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * Writes a {@link RunSummary} as pretty-printed JSON: the machine-readable result of a run.
 *
 * <p>Field names are snake_case and carry their unit ({@code _ms}, {@code _s}, {@code _rps} requests
 * per second, {@code _tps} tokens per second, {@code _bytes}); enum values are lower-case. The layout
 * is stable: every field below is always written, with {@code null} where a value does not exist
 * (an empty distribution's statistics, an unset limit, a throughput without a window), except the
 * two count maps, which omit zero entries, and the optional {@code slo} block. {@code schema_version}
 * changes when a field is renamed, removed or changes meaning, never when one is added. Version 2
 * added {@code ci95} and {@code tail} to every latency entry and the {@code vllm} and {@code slo}
 * blocks; nothing of version 1 changed. The {@code client_health} block was added later within version 2.
 *
 * <pre>{@code
 * {
 *   "schema_version": 2,
 *   "run": {
 *     "started_at": "2025-03-04T05:06:07Z",      // ISO-8601 wall clock of the run's origin
 *     "duration_ms": 1500.0,                      // origin to the end of the last request
 *     "target": "openai-chat http://...",
 *     "prompt_count": 1,
 *     "load": {
 *       "description": "LoadProfile[...]",
 *       "mode": "closed_loop" | "open_loop",
 *       "concurrency": 16 | null,                 // closed loop only
 *       "arrival_process": "poisson(10.0/s)" | null,
 *       "requested_rate_rps": 10.0 | null,
 *       "requests": 200 | null, "duration_s": 60.0 | null, "warmup_requests": 0,
 *       "max_in_flight": 256 | null, "seed": 0, "drain_timeout_s": 60.0, "timeout_s": null
 *     },
 *     "params": {
 *       "stream": true, "max_tokens": 256 | null, "temperature": 0.0 | null, "ignore_eos": false,
 *       "extra_body_fields": ["..."],             // names only
 *       "header_names": ["..."]                   // names only: values may be secrets
 *     },
 *     "environment": {
 *       "java_version": "17.0.15", "java_vendor": "...", "os_name": "...", "os_arch": "amd64",
 *       "available_processors": 8, "max_heap_bytes": 4294967296, "virtual_threads": false
 *     }
 *   },
 *   "quantile_method": "linear" | "nearest_rank",
 *   "requests": {
 *     "scheduled": 9, "warmup_excluded": 1, "measured": 8, "succeeded": 4, "failed": 4,
 *     "succeeded_without_tokens": 1
 *   },
 *   "failures_by_category": { "http_status": 2, "timeout": 1 },   // zero categories omitted
 *   "notices": ["3 of 8 requests came back empty ..."],  // ServerNotices: what the server did; often empty
 *   "measurement_window": { "start_ms": 100.0, "end_ms": 1500.0, "duration_ms": 1400.0 } | null,
 *   "throughput": {
 *     "request_throughput_rps": 2.857 | null,
 *     "output_token_throughput_tps": 7.14 | null,
 *     "total_token_throughput_tps": 57.1 | null   // input: the server's count, else the client's
 *   },
 *   "tokens": {
 *     "requests": 4, "output_tokens": 10, "input_tokens": 70, "requests_without_input_tokens": 2,
 *     "requests_with_client_input_tokens": 0,   // input counted by the client: the server reported none
 *     "mean_output_tokens": 2.5 | null, "mean_input_tokens": 35.0 | null,
 *     "count_sources": { "server_usage": 3, "chunk_count": 1 },  // zero sources omitted
 *     "count_disagreements": 1,
 *     "short_outputs": {"requests": 0, "asked": 4, "example_tokens": 0, "example_asked": 0}  // see ShortOutputs
 *   },
 *   "schedule": {
 *     "requested_rate_rps": 10.0 | null, "scheduled_rate_rps": 9.9, "achieved_rate_rps": 9.8,
 *     "sent": 7, "not_sent": 1, "lag_p50_ms": 0.0, "lag_p90_ms": 0.0, "lag_p99_ms": 48.5,
 *     "lag_p99_9_ms": 49.85, "lag_max_ms": 50.0
 *   },
 *   "client_health": {                             // could the client be trusted? see ClientHealth
 *     "verdict": "ok" | "degraded" | "client_bound" | "unmeasured",
 *     "reasons": ["hiccup p99 12.3 ms > 10 ms: the client's threads could not run on time"],
 *     "floor_ms": 0.31,                            // differences below this are client noise
 *     "error_bounds": [{"metric": "ttft", "bound_ms": 0.31, "p50_ms": 750.0, "p99_ms": 790.0,
 *                       "share_of_p50": 0.0004, "share_of_p99": 0.0004, "judged": true}],  // see MetricBound
 *     "monitored_s": 1.5 | null,                   // null: no figures (unmeasured, merged shards)
 *     "hiccup": {"samples": 1480, "p50_ms": 0.08, "p99_ms": 0.31, "p99_9_ms": 1.2, "max_ms": 2.1} | null,
 *     "cpu": {"process_cores": 0.45 | null, "share_of_cores": 0.22 | null, "available_processors": 2,
 *             "system_load_average": 1.3 | null, "machine_busy_share": 0.97 | null,  // all processes
 *             "local_server": "127.0.0.1" | null} | null,   // the target's host when it is this machine
 *     "gc": {"pauses": 3, "total_ms": 4.0, "max_ms": 2.0} | null,
 *     "sends": {"judged": true, "lag_p99_ms": 0.2, "scheduled_rate_rps": 100.0 | null,
 *               "achieved_rate_rps": 99.9} | null,
 *     "probes": [{"name": "event loop", "samples": 150, "p50_ms": 0.01, "p99_ms": 0.2, "p99_9_ms": 0.3,
 *                 "max_ms": 0.4}]
 *   },
 *   "latency": {                                   // one entry per LatencyMetric, in its order
 *     "ttft_ms": {
 *       "count": 3, "mean": 13.3, "std": 4.7, "min": 10.0, "p50": 10.0, "p90": 18.0, "p95": 19.0,
 *       "p99": 19.8, "p99_9": 19.98, "max": 20.0,   // all null when count is 0
 *       "unreliable_percentiles": ["p99", "p99_9"], // too few samples, see Distribution
 *       "ci95": {                                  // distribution-free 95 % interval per percentile
 *         "p50": {"lower": 10.0, "upper": 20.0} | null,   // null: too few values to form it
 *         ..., "p99_9": null
 *       },
 *       "tail": {                                  // per-request metrics only (absent for itl_*)
 *         "hill_alpha": 3.2 | null,                // Hill tail index of the top sqrt(n) values
 *         "p99_unstable": true, "reasons": ["no 95% interval for P99 from 3 values (needs 368)"]
 *       }
 *     },
 *     "ttfc_ms": { ... }, "ttft_vllm_compat_ms": { ... }, "itl_ms": { ... },
 *     "itl_per_token_ms": { ... }, "tpot_ms": { ... }, "ntpot_ms": { ... }, "e2e_ms": { ... },
 *     "stream_close_ms": { ... }, "ttft_from_intended_ms": { ... }, "e2e_from_intended_ms": { ... },
 *     "schedule_lag_ms": { ... }
 *   },
 *   "client_minus_server": {                       // per request, client - server, ms (see ServerTimingGap);
 *                                                  // only gaps some server reported a duration for
 *     "e2e_minus_server_total_ms": {"definition": "client E2E - server total (...)", "count": 3,
 *       "mean": 1.2, "min": 0.9, "p50": 1.1, "p90": ..., "p95": ..., "p99": ..., "p99_9": ..., "max": 1.6},
 *     "ttft_minus_server_prefill_ms": { ... }
 *   },
 *   "prefix_cache": {                              // only when a server reported cached prompt tokens or the
 *                                                  // ideal was computed; see PrefixCacheSummary, docs/prefix-cache.md
 *     "definition": "...", "requests": 12, "reporting_requests": 12, "hits": 8, "misses": 4,
 *     "cached_tokens": 1536, "prompt_tokens": 2210, "hit_ratio": 0.695 | null,
 *     "ideal_requests": 12, "ideal_shared_tokens": 1700, "ideal_prompt_tokens": 2300, "ideal_hit_ratio": 0.739 | null,
 *     "ideal_tokenizer": "estimate(4.0 chars/token)" | null,
 *     "ttft_hit_ms": {"count": 8, "mean": ..., "p50": ..., ..., "max": ...}, "ttft_miss_ms": { ... },
 *     "by_turn": {"0": { the same counts and ratios }, ...}, "by_session": {"0.0": { ... }, ...}
 *   },
 *   "vllm": {                                      // vLLM `bench serve` result keys, vLLM's definitions
 *     "duration": 1.4,                             // s: our measurement window (see below)
 *     "completed": 4, "failed": 4,
 *     "total_input_tokens": 70, "total_output_tokens": 10,
 *     "request_throughput": 2.857, "output_throughput": 7.14, "total_token_throughput": 57.1,
 *     "max_output_tokens_per_s": 12.0 | null,      // only when a TimeSeries was given
 *     "max_concurrent_requests": 2 | null,         // only when a TimeSeries was given
 *     "request_goodput": 2.14 | null,              // only when an SloReport was given
 *     "mean_ttft_ms": 13.3, "median_ttft_ms": 10.0, "std_ttft_ms": 4.7,
 *     "p50_ttft_ms": 10.0, "p90_ttft_ms": ..., "p95_ttft_ms": ..., "p99_ttft_ms": 19.8, "p99.9_ttft_ms": ...,
 *     ... the same for tpot, itl and e2el ...
 *   },
 *   "server_metrics": {                            // only when a scraper's ScrapeReport was given
 *     "endpoint": "http://127.0.0.1:8090/metrics", "interval_s": 1.0, "timeout_s": 30.0,
 *     "successful_scrapes": 12, "late_scrapes": 1, "failed_scrapes": 0,
 *     "series": {"llamacpp:requests_processing": {"samples": 12, "first": 0.0, "last": 0.0, "min": 0.0,
 *                "max": 4.0, "mean": 2.1, "first_s": 0.01, "last_s": 11.0}},  // values null without samples
 *     "memory_thresholds": {                       // only when thresholds were watched (ScrapeReport.withMemoryThresholds)
 *       "watched": [{"label": "kv 92%", "level": 0.92, "meaning": "KV eviction (seed 000 §3.3)",
 *                    "series": "vllm:kv_cache_usage_perc" | null}],              // null: none of its series scraped
 *       "crossings": [{"label": "kv 92%", "series": "vllm:kv_cache_usage_perc", "direction": "up" | "down",
 *                      "from_s": 1.2034, "to_s": 1.2135, "before": 0.9 | null, "after": 0.95}]}
 *   },
 *   "slo": {                                       // only when an SloReport was given
 *     "name": "chat", "all_passed": true,
 *     "verdicts": [{"slo": "TTFT p99 <= 200 ms", "outcome": "pass" | "fail" | "no_data",
 *                   "measured": 19.8 | null, "threshold": 200.0, "unit": "ms", "margin": 180.2 | null,
 *                   "note": ""}],
 *     "goodput": {"measured": 8, "met": 3, "goodput_rps": 2.14 | null, "fraction": 0.375 | null}
 *   }
 * }
 * }</pre>
 *
 * <p>The {@code vllm} block uses vLLM's names and, where infermark measures the same thing, its
 * definitions: {@code ttft} is {@link LatencyMetric#TTFT_VLLM_COMPAT} (the first chunk that is not
 * usage-only, the role chunk included, as vLLM times it), {@code itl} is {@link LatencyMetric#ITL},
 * {@code tpot} is {@link LatencyMetric#TPOT} and {@code e2el} is {@link LatencyMetric#E2E};
 * percentiles are numpy-linear and std is population, like vLLM's. Deliberate differences:
 * {@code duration} is infermark's measurement window (first intended send to last request end), not
 * vLLM's wall time around the whole benchmark, so a client that fell behind cannot shorten it;
 * {@code e2el} ends at the last token-bearing chunk, where vLLM's ends at the last data chunk (a
 * trailing usage chunk included); TPOT spans the first to the last token-bearing chunk where vLLM
 * uses (latency − ttft); and {@code total_input_tokens} counts the prompt tokens the server reported, and the
 * client's count where it reported none, where vLLM tokenizes prompts itself.
 */
public final class JsonReport {

  /** The version of the layout above. */
  public static final int SCHEMA_VERSION = 2;

  private static final JsonFactory JSON = JsonFactory.builder().build();

  private JsonReport() {}

  /**
   * What a report can carry beyond the summary: SLO verdicts and goodput, and the time series whose
   * exact peaks fill vLLM's {@code max_output_tokens_per_s} and {@code max_concurrent_requests}.
   *
   * @param slo the SLO report of the same run, if any
   * @param series the time series of the same run, if any
   * @param scrape the server metrics scraped during the same run, if any
   */
  public record Extras(Optional<SloReport> slo, Optional<TimeSeries> series,
      Optional<io.infermark.metrics.server.ScrapeReport> scrape) {

    /** No extras. */
    public static final Extras NONE = new Extras(Optional.empty(), Optional.empty(), Optional.empty());

    /** Validates. */
    public Extras {
      java.util.Objects.requireNonNull(slo, "slo");
      java.util.Objects.requireNonNull(series, "series");
      java.util.Objects.requireNonNull(scrape, "scrape");
    }

    /** Extras with an SLO report. */
    public Extras withSlo(SloReport report) {
      return new Extras(Optional.of(report), series, scrape);
    }

    /** Extras with a time series. */
    public Extras withSeries(TimeSeries timeSeries) {
      return new Extras(slo, Optional.of(timeSeries), scrape);
    }

    /** Extras with what a {@link io.infermark.metrics.server.PrometheusScraper} collected during the run. */
    public Extras withScrape(io.infermark.metrics.server.ScrapeReport report) {
      return new Extras(slo, series, Optional.of(report));
    }
  }

  /** The summary as a JSON string. */
  public static String toJson(RunSummary summary) {
    return toJson(summary, Extras.NONE);
  }

  /** The summary with extras as a JSON string. */
  public static String toJson(RunSummary summary, Extras extras) {
    StringWriter out = new StringWriter();
    write(summary, extras, out);
    return out.toString();
  }

  /**
   * Writes the summary with extras to a file (UTF-8), replacing it if it exists.
   *
   * @throws UncheckedIOException if the file cannot be written
   */
  public static void write(RunSummary summary, Extras extras, Path file) {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      write(summary, extras, out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the JSON report to " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes the summary to a file (UTF-8), replacing it if it exists.
   *
   * @throws UncheckedIOException if the file cannot be written
   */
  public static void write(RunSummary summary, Path file) {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      write(summary, out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the JSON report to " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes the summary to a writer, which is flushed but left open.
   *
   * @throws UncheckedIOException if the writer fails
   */
  public static void write(RunSummary summary, Writer out) {
    write(summary, Extras.NONE, out);
  }

  /**
   * Writes the summary with extras to a writer, which is flushed but left open.
   *
   * @throws UncheckedIOException if the writer fails
   */
  public static void write(RunSummary summary, Extras extras, Writer out) {
    java.util.Objects.requireNonNull(extras, "extras");
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      g.setPrettyPrinter(new DefaultPrettyPrinter(
          Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER)));
      writeSummary(g, summary, extras);
      g.writeRaw('\n');
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the JSON report: " + e.getMessage(), e);
    }
  }

  private static void writeSummary(JsonGenerator g, RunSummary s, Extras extras) throws IOException {
    g.writeStartObject();
    g.writeNumberField("schema_version", SCHEMA_VERSION);
    RunFactsJson.writeRun(g, s.run());
    g.writeStringField("quantile_method", lower(s.quantileMethod()));
    writeRequests(g, s.requests());
    RunFactsJson.writeAvailability(g, s.availability());
    counts(g, "failures_by_category", s.failuresByCategory());
    g.writeArrayFieldStart("notices");
    for (String notice : io.infermark.metrics.ServerNotices.of(s)) {
      g.writeString(notice);
    }
    g.writeEndArray();
    writeWindow(g, s.window());
    g.writeObjectFieldStart("throughput");
    number(g, "request_throughput_rps", s.requestThroughputRps());
    number(g, "output_token_throughput_tps", s.outputTokenThroughputTps());
    number(g, "total_token_throughput_tps", s.totalTokenThroughputTps());
    g.writeEndObject();
    writeTokens(g, s.tokens());
    writeSchedule(g, s.schedule());
    RunFactsJson.writeClientHealth(g, s.clientHealth());
    g.writeObjectFieldStart("latency");
    for (Map.Entry<LatencyMetric, Distribution> e : s.distributions().entrySet()) {
      writeDistribution(g, e.getKey(), e.getValue());
    }
    g.writeEndObject();
    g.writeObjectFieldStart("client_minus_server");
    for (Map.Entry<io.infermark.metrics.ServerTimingGap, Distribution> e : s.clientMinusServer().entrySet()) {
      writeGap(g, e.getKey(), e.getValue());
    }
    g.writeEndObject();
    writeColdStarts(g, s.coldStarts());
    PrefixCacheJson.write(g, s.prefixCache());
    SessionsJson.write(g, s.sessions());
    writeVllm(g, s, extras);
    if (extras.scrape().isPresent()) {
      ScrapeJson.write(g, extras.scrape().get());
    }
    if (extras.slo().isPresent()) {
      writeSlo(g, extras.slo().get());
    }
    g.writeEndObject();
  }

  /** vLLM's metric names in its result JSON, each mapped to the infermark metric with its definition. */
  private static final Map<String, LatencyMetric> VLLM_METRICS = Map.of("ttft", LatencyMetric.TTFT_VLLM_COMPAT,
      "tpot", LatencyMetric.TPOT, "itl", LatencyMetric.ITL, "e2el", LatencyMetric.E2E);

  private static void writeVllm(JsonGenerator g, RunSummary s, Extras extras) throws IOException {
    g.writeObjectFieldStart("vllm");
    number(g, "duration", s.window().map(w -> OptionalDouble.of(w.durationSeconds())).orElse(OptionalDouble.empty()));
    g.writeNumberField("completed", s.requests().succeeded());
    // vLLM's failed: sent requests that failed; one a stop left unsent is neither (requests.failed counts it)
    g.writeNumberField("failed", s.requests().failed()
        - s.failuresByCategory().getOrDefault(io.infermark.core.capture.ErrorCategory.NOT_SENT, 0));
    g.writeNumberField("total_input_tokens", s.tokens().inputTokens());
    g.writeNumberField("total_output_tokens", s.tokens().outputTokens());
    number(g, "request_throughput", s.requestThroughputRps());
    number(g, "output_throughput", s.outputTokenThroughputTps());
    number(g, "total_token_throughput", s.totalTokenThroughputTps());
    number(g, "max_output_tokens_per_s", extras.series()
        .map(t -> OptionalDouble.of(t.peakOutputTokensPerSecond().value())).orElse(OptionalDouble.empty()));
    number(g, "max_concurrent_requests", extras.series()
        .map(t -> OptionalInt.of((int) t.peakConcurrency().value())).orElse(OptionalInt.empty()));
    number(g, "request_goodput", extras.slo().map(r -> r.goodput().goodputRps()).orElse(OptionalDouble.empty()));
    for (String name : new String[] {"ttft", "tpot", "itl", "e2el"}) {
      Distribution d = s.distribution(VLLM_METRICS.get(name));
      number(g, "mean_" + name + "_ms", d.mean());
      number(g, "median_" + name + "_ms", d.p50());
      number(g, "std_" + name + "_ms", d.std());
      for (Percentile p : Percentile.values()) {
        number(g, vllmPercentile(p) + "_" + name + "_ms", d.percentile(p.p()));
      }
    }
    g.writeEndObject();
  }

  /** vLLM writes {@code p99} for whole percentiles and {@code p99.9} otherwise. */
  static String vllmPercentile(Percentile p) {
    double v = p.p() * 100;
    return "p" + (v == Math.rint(v) ? Long.toString((long) v) : BigDecimalString.of(v));
  }

  /** Shortest decimal of a percentile like 99.9, without binary noise. */
  private static final class BigDecimalString {
    static String of(double v) {
      return new java.math.BigDecimal(Double.toString(v)).round(new java.math.MathContext(6)).stripTrailingZeros()
          .toPlainString();
    }
  }

  private static void writeSlo(JsonGenerator g, SloReport report) throws IOException {
    g.writeObjectFieldStart("slo");
    g.writeStringField("name", report.name());
    g.writeBooleanField("all_passed", report.allPassed());
    g.writeArrayFieldStart("verdicts");
    for (SloVerdict v : report.verdicts()) {
      g.writeStartObject();
      g.writeStringField("slo", v.slo().name());
      g.writeStringField("outcome", lower(v.outcome()));
      number(g, "measured", v.measured());
      g.writeNumberField("threshold", v.threshold());
      g.writeStringField("unit", v.unit());
      number(g, "margin", v.margin());
      g.writeStringField("note", v.note());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeObjectFieldStart("goodput");
    g.writeNumberField("measured", report.goodput().measured());
    g.writeNumberField("met", report.goodput().met());
    number(g, "goodput_rps", report.goodput().goodputRps());
    number(g, "fraction", report.goodput().fraction());
    g.writeEndObject();
    g.writeEndObject();
  }

  private static void writeRequests(JsonGenerator g, RequestCounts c) throws IOException {
    g.writeObjectFieldStart("requests");
    g.writeNumberField("scheduled", c.scheduled());
    g.writeNumberField("warmup_excluded", c.warmupExcluded());
    g.writeNumberField("cooldown_excluded", c.cooldownExcluded());
    g.writeNumberField("measured", c.measured());
    g.writeNumberField("succeeded", c.succeeded());
    g.writeNumberField("failed", c.failed());
    g.writeNumberField("succeeded_without_tokens", c.succeededWithoutTokens());
    g.writeEndObject();
  }

  private static void writeWindow(JsonGenerator g, Optional<MeasurementWindow> window) throws IOException {
    g.writeFieldName("measurement_window");
    if (window.isEmpty()) {
      g.writeNull();
      return;
    }
    MeasurementWindow w = window.get();
    g.writeStartObject();
    g.writeNumberField("start_ms", w.startNanos() / 1e6);
    g.writeNumberField("end_ms", w.endNanos() / 1e6);
    g.writeNumberField("duration_ms", w.durationNanos() / 1e6);
    g.writeEndObject();
  }

  private static void writeTokens(JsonGenerator g, TokenSummary t) throws IOException {
    g.writeObjectFieldStart("tokens");
    g.writeNumberField("requests", t.requests());
    g.writeNumberField("output_tokens", t.outputTokens());
    g.writeNumberField("input_tokens", t.inputTokens());
    g.writeNumberField("requests_without_input_tokens", t.requestsWithoutInputTokens());
    g.writeNumberField("requests_with_client_input_tokens", t.requestsWithClientInputTokens());
    number(g, "mean_output_tokens", t.meanOutputTokens());
    number(g, "mean_input_tokens", t.meanInputTokens());
    counts(g, "count_sources", t.sources());
    g.writeNumberField("count_disagreements", t.disagreements());
    g.writeObjectFieldStart("short_outputs");
    g.writeNumberField("requests", t.shortOutputs().requests());
    g.writeNumberField("asked", t.shortOutputs().asked());
    g.writeNumberField("example_tokens", t.shortOutputs().exampleTokens());
    g.writeNumberField("example_asked", t.shortOutputs().exampleAsked());
    g.writeEndObject();
    g.writeEndObject();
  }

  private static void writeSchedule(JsonGenerator g, ScheduleStats s) throws IOException {
    g.writeObjectFieldStart("schedule");
    number(g, "requested_rate_rps", s.requestedRate());
    g.writeNumberField("scheduled_rate_rps", s.scheduledRate());
    g.writeNumberField("achieved_rate_rps", s.achievedRate());
    g.writeNumberField("sent", s.sent());
    g.writeNumberField("not_sent", s.notSent());
    g.writeNumberField("lag_p50_ms", s.lagP50Nanos() / 1e6);
    g.writeNumberField("lag_p90_ms", s.lagP90Nanos() / 1e6);
    g.writeNumberField("lag_p99_ms", s.lagP99Nanos() / 1e6);
    g.writeNumberField("lag_p99_9_ms", s.lagP999Nanos() / 1e6);
    g.writeNumberField("lag_max_ms", s.lagMaxNanos() / 1e6);
    g.writeEndObject();
  }

  private static void writeDistribution(JsonGenerator g, LatencyMetric metric, Distribution d) throws IOException {
    g.writeObjectFieldStart(metric.fieldName());
    g.writeNumberField("count", d.count());
    number(g, "mean", d.mean());
    number(g, "std", d.std());
    number(g, "min", d.min());
    for (Percentile p : Percentile.values()) {
      number(g, p.fieldName(), d.percentile(p.p()));
    }
    number(g, "max", d.max());
    g.writeArrayFieldStart("unreliable_percentiles");
    for (Percentile p : Percentile.values()) {
      if (d.isTailUnreliable(p.p())) {
        g.writeString(p.fieldName());
      }
    }
    g.writeEndArray();
    g.writeObjectFieldStart("ci95");
    double[] ps = new double[Percentile.values().length];
    for (Percentile p : Percentile.values()) {
      ps[p.ordinal()] = p.p();
    }
    java.util.List<PercentileInterval> intervals = d.percentileIntervals(ps, 0.95);
    for (Percentile p : Percentile.values()) {
      PercentileInterval i = intervals.get(p.ordinal());
      if (i.isFormed()) {
        g.writeObjectFieldStart(p.fieldName());
        g.writeNumberField("lower", i.lowerMillis().getAsDouble());
        g.writeNumberField("upper", i.upperMillis().getAsDouble());
        g.writeEndObject();
      } else {
        g.writeNullField(p.fieldName());
      }
    }
    g.writeEndObject();
    // Tail diagnostics sort the values; pooled metrics (10^8 gaps) would make the report slow for little gain.
    if (!metric.isPooled()) {
      TailDiagnostics t = d.tailDiagnostics();
      g.writeObjectFieldStart("tail");
      number(g, "hill_alpha", t.hill().map(h -> OptionalDouble.of(h.alpha())).orElse(OptionalDouble.empty()));
      g.writeBooleanField("p99_unstable", t.p99Unstable());
      g.writeArrayFieldStart("reasons");
      for (String r : t.reasons()) {
        g.writeString(r);
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    g.writeEndObject();
  }

  /** One client − server distribution: its definition, count and percentiles, in ms. */
  /** Warm and cold requests apart: counts, then TTFT and E2E of each (ms). */
  private static void writeColdStarts(JsonGenerator g, io.infermark.metrics.ColdStartSummary c) throws IOException {
    g.writeObjectFieldStart("cold_start");
    g.writeStringField("rule", c.rule());
    g.writeNumberField("cold", c.cold());
    g.writeNumberField("warm", c.warm());
    for (String[] part : new String[][] {{"ttft_ms", "cold"}, {"ttft_ms", "warm"}, {"e2e_ms", "cold"},
        {"e2e_ms", "warm"}}) {
      if (part[1].equals("cold")) {
        g.writeObjectFieldStart(part[0]);
      }
      Distribution d = part[0].equals("ttft_ms") ? (part[1].equals("cold") ? c.ttftCold() : c.ttftWarm())
          : (part[1].equals("cold") ? c.e2eCold() : c.e2eWarm());
      g.writeObjectFieldStart(part[1]);
      g.writeNumberField("count", d.count());
      number(g, "mean", d.mean());
      number(g, "p50", d.p50());
      number(g, "p99", d.p99());
      number(g, "max", d.max());
      g.writeEndObject();
      if (part[1].equals("warm")) {
        g.writeEndObject();
      }
    }
    g.writeEndObject();
  }

  private static void writeGap(JsonGenerator g, io.infermark.metrics.ServerTimingGap gap, Distribution d)
      throws IOException {
    g.writeObjectFieldStart(gap.fieldName());
    g.writeStringField("definition", gap.definition());
    g.writeNumberField("count", d.count());
    number(g, "mean", d.mean());
    number(g, "min", d.min());
    for (Percentile p : Percentile.values()) {
      number(g, p.fieldName(), d.percentile(p.p()));
    }
    number(g, "max", d.max());
    g.writeEndObject();
  }

}
