package io.infermark.metrics.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.workload.WorkloadTags;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.timeseries.TimeSeries;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Writes a run as the result JSON of vLLM's {@code benchmark_serving.py} / {@code vllm bench serve
 * --save-result}: the same top-level keys, the same units (seconds for per-request values and the
 * duration, milliseconds for statistics) and vLLM's own definitions, so scripts and dashboards that
 * read vLLM's files read this one unchanged.
 *
 * <p>Keys, in the order of vLLM's current client ({@code vllm/benchmarks/serve.py}; docs/formats.md lists them
 * all, with {@code endpoint_type}, {@code label}, {@code latencies}, {@code start_times}, {@code queue_times},
 * {@code rtfx}, the ramp-up keys, {@link Options.Builder#extra extras} and the client queue metrics): {@code date}
 * ({@code yyyyMMdd-HHmmss}), {@code backend}, {@code model_id},
 * {@code tokenizer_id}, {@code num_prompts}, any {@code --metadata} pairs, {@code request_rate} (a
 * number, or the string {@code "inf"}), {@code burstiness}, {@code max_concurrency} (null when
 * unlimited), {@code duration} (s), {@code completed}, {@code total_input_tokens},
 * {@code total_output_tokens}, {@code request_throughput}, {@code request_goodput} (null without goodput
 * objectives; vLLM's older client spelled it with a trailing colon), {@code output_throughput},
 * {@code total_token_throughput}, the per-request arrays {@code input_lens}, {@code output_lens},
 * {@code ttfts} (s), {@code itls} (s, one list per request), {@code generated_texts} (empty strings
 * unless the run captured text) and {@code errors} (empty for successes), then for each selected
 * metric ({@code ttft}, {@code tpot}, {@code itl}, {@code e2el}) {@code mean_*_ms},
 * {@code median_*_ms}, {@code std_*_ms} and {@code p<P>_*_ms} per selected percentile ({@code p99},
 * {@code p99.9}). Three keys that later vLLM releases added are written too (see {@link #NEWER_VLLM_KEYS}):
 * {@code failed}, {@code max_output_tokens_per_s} (the most output tokens in any one-second window,
 * always computed) and {@code max_concurrent_requests}. An interrupted run's file
 * ({@link RunResult#interruption()}) also has {@code interrupted: true} and {@code interruption} (reason,
 * when, and how many requests completed, were cancelled and were never sent).
 *
 * <p>Definitions, as vLLM's client measures on the same stream (not infermark's own, see
 * {@code LatencyMetric}): TTFT ends at the first chunk with non-empty {@code choices} (a chat
 * stream's role-only chunk included); ITL is every gap between consecutive chunks with choices (the
 * gap from the role chunk to the first content, and to an empty finish chunk, included); latency
 * (e2el) ends at the last chunk a chat stream carried (its usage chunk included) or, on the
 * completions endpoint, at the last chunk with choices; TPOT is {@code (latency - ttft) / (N - 1)}
 * for {@code N > 1}; statistics are numpy's (population std, linear percentiles) over successful
 * requests, and 0 when there are none. Differences that remain: {@code duration} is the run's, from its
 * origin to the end of its last request, where vLLM times its whole loop; input lengths are the
 * client's count of the prompt when the workload tagged it ({@code input_tokens_achieved}), else
 * the server's reported prompt tokens; warmup and cooldown requests are left out, and so are requests a stop
 * left unsent (neither {@code completed} nor {@code failed}, no per-request entry; {@code interruption} counts them).
 */
public final class VllmResultJson {

  /**
   * Keys later vLLM releases write that {@code benchmark_serving.py} at commit 0049e29c did not (a subset of what
   * the current client writes, docs/formats.md).
   */
  public static final Set<String> NEWER_VLLM_KEYS = Set.of("failed", "max_output_tokens_per_s",
      "max_concurrent_requests");

  private static final JsonFactory JSON = JsonFactory.builder().build();
  /** The metrics {@code --percentile-metrics} takes, as vLLM's current client names them. */
  static final List<String> METRICS = List.of("ttft", "tpot", "itl", "e2el", "client_queue_time",
      "e2el_including_client_queue");
  /** The per-request arrays vLLM's client writes only with {@code --save-detailed}. */
  static final List<String> DETAILED_KEYS = List.of("input_lens", "output_lens", "start_times", "ttfts", "itls",
      "generated_texts", "errors");

  /**
   * vLLM's ramp-up: the request rate moves from {@code startRps} to {@code endRps} over the requests,
   * {@code linear}ly or {@code exponential}ly.
   *
   * @param strategy "linear" or "exponential"
   * @param startRps the first request's rate
   * @param endRps the last request's rate
   */
  public record RampUp(String strategy, int startRps, int endRps) {
    /** Validates. */
    public RampUp {
      Objects.requireNonNull(strategy, "strategy");
      if (!strategy.equals("linear") && !strategy.equals("exponential")) {
        throw new IllegalArgumentException("ramp-up strategy must be linear or exponential, was " + strategy);
      }
    }
  }
  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT);

  private VllmResultJson() {}

  /**
   * What vLLM writes beside the measurements: the run's set-up as its command line gave it, and
   * which statistics to write. Build with {@link #builder(String, String)}.
   */
  public static final class Options {
    private final String backend;
    private final String modelId;
    private final String tokenizerId;
    private final OptionalInt numPrompts;
    private final double requestRate;
    private final double burstiness;
    private final OptionalInt maxConcurrency;
    private final List<String> metrics;
    private final double[] percentiles;
    private final Map<String, Double> goodput;
    private final boolean chat;
    private final LocalDateTime date;
    private final Map<String, String> metadata;
    private final java.util.Optional<String> label;
    private final boolean skipTokenizer;
    private final boolean detailed;
    private final java.util.Optional<RampUp> rampUp;
    private final Map<String, Object> extras;

    private Options(Builder b) {
      this.backend = b.backend;
      this.modelId = b.modelId;
      this.tokenizerId = b.tokenizerId == null ? b.modelId : b.tokenizerId;
      this.numPrompts = b.numPrompts;
      this.requestRate = b.requestRate;
      this.burstiness = b.burstiness;
      this.maxConcurrency = b.maxConcurrency;
      this.metrics = List.copyOf(b.metrics);
      this.percentiles = b.percentiles.clone();
      this.goodput = Map.copyOf(b.goodput);
      this.chat = b.chat;
      this.date = b.date;
      this.metadata = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.metadata));
      this.label = b.label;
      this.skipTokenizer = b.skipTokenizer;
      this.detailed = b.detailed;
      this.rampUp = b.rampUp;
      this.extras = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.extras));
    }

    /** Options for a run with the given backend name ({@code openai-chat}, {@code vllm}, ...) and model. */
    public static Builder builder(String backend, String modelId) {
      return new Builder(backend, modelId);
    }

    /** The metrics that get statistics, in vLLM's names. */
    public List<String> metrics() {
      return metrics;
    }

    /** The percentiles written per metric, in percent. */
    public double[] percentiles() {
      return percentiles.clone();
    }

    /** The goodput objectives in ms per metric; empty without goodput. */
    public Map<String, Double> goodput() {
      return goodput;
    }

    /** The result's {@code date}, which also names its file. */
    public LocalDateTime date() {
      return date;
    }

    /** vLLM's file name: {@code <backend>-<rate>qps[-concurrency<N>]-<model base name>-<date>.json}. */
    public String fileName() {
      String base = modelId.substring(modelId.lastIndexOf('/') + 1);
      String concurrency = maxConcurrency.isPresent() ? "-concurrency" + maxConcurrency.getAsInt() : "";
      String prefix = label.orElse(backend);
      String load = rampUp.map(r -> "ramp-up-" + r.strategy() + "-" + r.startRps() + "qps-" + r.endRps() + "qps")
          .orElse(pythonFloat(requestRate) + "qps");
      return prefix + "-" + load + concurrency + "-" + base + "-" + DATE.format(date) + ".json";
    }

    @Override
    public String toString() {
      return "VllmResultJson.Options[" + backend + ", " + modelId + ", rate " + pythonFloat(requestRate)
          + ", metrics " + metrics + ", percentiles " + Arrays.toString(percentiles) + "]";
    }

    /** Configures {@link Options}. */
    public static final class Builder {
      private final String backend;
      private final String modelId;
      private String tokenizerId;
      private OptionalInt numPrompts = OptionalInt.empty();
      private double requestRate = Double.POSITIVE_INFINITY;
      private double burstiness = 1.0;
      private OptionalInt maxConcurrency = OptionalInt.empty();
      private List<String> metrics = List.of("ttft", "tpot", "itl");
      private double[] percentiles = {99};
      private Map<String, Double> goodput = Map.of();
      private boolean chat;
      private LocalDateTime date = LocalDateTime.now();
      private final Map<String, String> metadata = new LinkedHashMap<>();
      private java.util.Optional<String> label = java.util.Optional.empty();
      private boolean skipTokenizer;
      private boolean detailed = true;
      private java.util.Optional<RampUp> rampUp = java.util.Optional.empty();
      private final Map<String, Object> extras = new LinkedHashMap<>();

      private Builder(String backend, String modelId) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.modelId = Objects.requireNonNull(modelId, "modelId");
        this.chat = backend.equals("openai-chat");
      }

      /**
       * {@code tokenizer_id}: the name of the tokenizer that counted the prompts' tokens (vLLM writes its
       * {@code --tokenizer}, which it also counts with); the model id by default. Name the tokenizer that
       * actually counted (e.g. {@code cl100k_base}), not one asked for and not used.
       */
      public Builder tokenizerId(String id) {
        this.tokenizerId = Objects.requireNonNull(id, "tokenizerId");
        return this;
      }

      /** {@code num_prompts}; the number of measured requests by default. */
      public Builder numPrompts(int n) {
        this.numPrompts = OptionalInt.of(n);
        return this;
      }

      /** Requests per second asked for; infinite (the default) is written as {@code "inf"}. */
      public Builder requestRate(double rate) {
        if (!(rate > 0)) {
          throw new IllegalArgumentException("requestRate must be > 0 (or infinite), was " + rate);
        }
        this.requestRate = rate;
        return this;
      }

      /** The gamma shape of the arrivals (1 = Poisson, the default). */
      public Builder burstiness(double b) {
        if (!(b > 0) || Double.isInfinite(b)) {
          throw new IllegalArgumentException("burstiness must be finite and > 0, was " + b);
        }
        this.burstiness = b;
        return this;
      }

      /** The concurrency limit, if any (null in the file otherwise). */
      public Builder maxConcurrency(int n) {
        this.maxConcurrency = OptionalInt.of(n);
        return this;
      }

      /**
       * Which metrics get statistics: a subset of {@code ttft, tpot, itl, e2el} (vLLM's
       * {@code --percentile-metrics}, default {@code ttft,tpot,itl}).
       *
       * @throws IllegalArgumentException naming an unknown metric
       */
      public Builder metrics(List<String> names) {
        for (String n : names) {
          if (!METRICS.contains(n)) {
            throw new IllegalArgumentException("unknown metric '" + n + "': use " + String.join(", ", METRICS));
          }
        }
        this.metrics = List.copyOf(names);
        return this;
      }

      /**
       * Which percentiles, in percent (vLLM's {@code --metric-percentiles}, default 99).
       *
       * @throws IllegalArgumentException for a value outside [0, 100]
       */
      public Builder percentiles(double... percents) {
        for (double p : percents) {
          if (!(p >= 0 && p <= 100)) {
            throw new IllegalArgumentException("percentiles are in [0, 100], was " + p);
          }
        }
        this.percentiles = percents.clone();
        return this;
      }

      /**
       * Goodput objectives in ms per metric ({@code ttft}, {@code tpot}, {@code e2el}), vLLM's
       * {@code --goodput}: a successful request is good when every value is at most its objective.
       */
      public Builder goodput(Map<String, Double> objectivesMillis) {
        for (String n : objectivesMillis.keySet()) {
          if (!List.of("ttft", "tpot", "e2el").contains(n)) {
            throw new IllegalArgumentException("unknown goodput metric '" + n + "': use ttft, tpot or e2el");
          }
        }
        this.goodput = Map.copyOf(objectivesMillis);
        return this;
      }

      /** Whether the stream is a chat stream (latency then counts a trailing usage chunk); from the backend by default. */
      public Builder chat(boolean chat) {
        this.chat = chat;
        return this;
      }

      /** The {@code date} written and used in {@link Options#fileName()}; now by default. */
      public Builder date(LocalDateTime date) {
        this.date = Objects.requireNonNull(date, "date");
        return this;
      }

      /** An extra {@code KEY=VALUE} pair (vLLM's {@code --metadata}), written after {@code num_prompts}. */
      public Builder metadata(String key, String value) {
        metadata.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return this;
      }

      /** vLLM's {@code --label}: written as {@code label} and the file name's prefix (the backend otherwise). */
      public Builder label(String label) {
        this.label = java.util.Optional.of(Objects.requireNonNull(label, "label"));
        return this;
      }

      /**
       * vLLM's {@code --skip-tokenizer-init}: no tokenizer, so {@code tokenizer_id} is null and, as vLLM's client
       * does without one, only E2EL (and the client queue metrics) get statistics.
       */
      public Builder skipTokenizer(boolean skip) {
        this.skipTokenizer = skip;
        return this;
      }

      /**
       * Whether the file carries the per-request arrays {@code input_lens}, {@code output_lens},
       * {@code start_times}, {@code ttfts}, {@code itls}, {@code generated_texts} and {@code errors}: vLLM writes
       * them only with {@code --save-detailed}. True by default; {@link #result} always has them.
       */
      public Builder detailed(boolean detailed) {
        this.detailed = detailed;
        return this;
      }

      /** vLLM's {@code --ramp-up-strategy}, written as {@code ramp_up_*} keys and in the file name. */
      public Builder rampUp(RampUp ramp) {
        this.rampUp = java.util.Optional.of(Objects.requireNonNull(ramp, "ramp"));
        return this;
      }

      /**
       * A key written after {@code rtfx}, as vLLM writes its optional blocks (probe statistics
       * {@code probe_*}, {@code rps_change_events}, {@code spec_decode_*}): a number, string, list or map.
       */
      public Builder extra(String key, Object value) {
        extras.put(Objects.requireNonNull(key, "key"), value);
        return this;
      }

      /** The options. */
      public Options build() {
        return new Options(this);
      }
    }
  }

  /**
   * The run's result as vLLM would save it: an ordered map of the keys above to numbers, strings,
   * nulls and lists (per-request ITLs as lists of lists), from which the file is written. A command
   * line tool prints its summary from the same map, so the two never disagree.
   *
   * @throws IllegalStateException if the run did not retain its records
   */
  public static Map<String, Object> result(RunResult run, Options options) {
    Objects.requireNonNull(options, "options");
    // what happened only: a request a stop left unsent is neither completed nor failed (the interruption counts it)
    List<RequestRecord> records = run.measured().stream().filter(RequestRecord::wasSent).toList();
    PerRequest[] rows = new PerRequest[records.size()];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = PerRequest.of(records.get(i), options.chat);
    }
    return build(run, records, rows, options);
  }

  /** The run as vLLM's result JSON (one line, as {@code json.dump} writes it). */
  public static String toJson(RunResult run, Options options) {
    StringWriter out = new StringWriter();
    write(run, options, out);
    return out.toString();
  }

  /**
   * Writes the run to a file (UTF-8), replacing it.
   *
   * @throws UncheckedIOException if the file cannot be written
   */
  public static void write(RunResult run, Options options, Path file) {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      write(run, options, out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the vLLM result JSON to " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes the run to a writer, flushed and left open.
   *
   * @throws UncheckedIOException if the writer fails
   * @throws IllegalStateException if the run did not retain its records
   */
  public static void write(RunResult run, Options options, Writer out) {
    Map<String, Object> result = result(run, options);
    if (!options.detailed) {
      Map<String, Object> kept = new LinkedHashMap<>(result);
      DETAILED_KEYS.forEach(kept::remove);
      result = kept;
    }
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      writeValue(g, result);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the vLLM result JSON: " + e.getMessage(), e);
    }
  }

  private static void writeValue(JsonGenerator g, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
    } else if (v instanceof Map<?, ?> m) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        g.writeFieldName((String) e.getKey());
        writeValue(g, e.getValue());
      }
      g.writeEndObject();
    } else if (v instanceof List<?> l) {
      g.writeStartArray();
      for (Object o : l) {
        writeValue(g, o);
      }
      g.writeEndArray();
    } else if (v instanceof double[] d) {
      g.writeStartArray();
      for (double x : d) {
        g.writeNumber(x);
      }
      g.writeEndArray();
    } else if (v instanceof Double d) {
      g.writeNumber(d);
    } else if (v instanceof Number n) {
      g.writeNumber(n.longValue());
    } else {
      g.writeString(v.toString());
    }
  }

  /** One request as vLLM's client would have seen it (seconds). */
  private record PerRequest(boolean success, int inputLen, int outputLen, double ttft, double[] itl, double latency,
      String text, String error) {

    static PerRequest of(RequestRecord r, boolean chat) {
      int input = inputLength(r);
      if (!r.succeeded()) {
        return new PerRequest(false, input, 0, 0.0, new double[0], 0.0, "",
            r.failure().map(f -> f.category().name().toLowerCase(Locale.ROOT) + ": " + f.message()).orElse("failed"));
      }
      double ttft = 0.0;
      double last = 0.0;
      double lastWithChoices = 0.0;
      boolean first = true;
      List<Double> gaps = new ArrayList<>();
      ChunkTimeline.Cursor c = r.chunks().cursor();
      while (c.next()) {
        double t = c.offsetNanos() / 1e9;
        if (c.kind() != ChunkKind.USAGE) {
          if (first) {
            ttft = t;
            first = false;
          } else {
            gaps.add(t - lastWithChoices);
          }
          lastWithChoices = t;
        }
        last = t;
      }
      double[] itl = gaps.stream().mapToDouble(Double::doubleValue).toArray();
      return new PerRequest(true, input, r.outputTokens(), ttft, itl, chat ? last : lastWithChoices,
          r.text().orElse(""), "");
    }

    private static int inputLength(RequestRecord r) {
      String tagged = r.tags().get(WorkloadTags.INPUT_TOKENS_ACHIEVED);
      if (tagged != null) {
        try {
          return Integer.parseInt(tagged);
        } catch (NumberFormatException e) {
          // fall through to the server's count
        }
      }
      return r.usage().promptTokens().orElse(0);
    }

    double tpot() {
      return outputLen > 1 ? (latency - ttft) / (outputLen - 1) : 0.0;
    }
  }

  private static Map<String, Object> build(RunResult run, List<RequestRecord> records, PerRequest[] rows,
      Options o) {
    double duration = run.durationNanos() / 1e9;
    int completed = 0;
    long totalInput = 0;
    long totalOutput = 0;
    int good = 0;
    List<Double> ttfts = new ArrayList<>();
    List<Double> tpots = new ArrayList<>();
    List<Double> itls = new ArrayList<>();
    List<Double> e2els = new ArrayList<>();
    for (PerRequest r : rows) {
      if (!r.success) {
        continue;
      }
      completed++;
      totalInput += r.inputLen;
      totalOutput += r.outputLen;
      ttfts.add(r.ttft);
      if (r.outputLen > 1) {
        tpots.add(r.tpot());
      }
      for (double gap : r.itl) {
        itls.add(gap);
      }
      e2els.add(r.latency);
      if (isGood(r, o.goodput)) {
        good++;
      }
    }
    TimeSeries series = TimeSeries.of(records, TimeSeries.DEFAULT_INTERVAL);

    Map<String, Object> m = new LinkedHashMap<>();
    m.put("date", DATE.format(o.date));
    m.put("endpoint_type", o.backend);
    m.put("backend", o.backend);
    m.put("label", o.label.orElse(null));
    m.put("model_id", o.modelId);
    m.put("tokenizer_id", o.skipTokenizer ? null : o.tokenizerId);
    m.put("num_prompts", (long) o.numPrompts.orElse(rows.length));
    m.putAll(o.metadata);
    m.put("request_rate", Double.isInfinite(o.requestRate) ? "inf" : (Object) o.requestRate);
    m.put("burstiness", o.burstiness);
    m.put("max_concurrency", o.maxConcurrency.isPresent() ? (Object) (long) o.maxConcurrency.getAsInt() : null);
    o.rampUp.ifPresent(r -> {
      m.put("ramp_up_strategy", r.strategy());
      m.put("ramp_up_start_rps", (long) r.startRps());
      m.put("ramp_up_end_rps", (long) r.endRps());
    });
    m.put("duration", duration);
    m.put("completed", (long) completed);
    m.put("failed", (long) (rows.length - completed));
    m.put("total_input_tokens", totalInput);
    m.put("total_output_tokens", totalOutput);
    m.put("request_throughput", rate(completed, duration));
    m.put("request_goodput", o.goodput.isEmpty() ? null : (Object) rate(good, duration));
    m.put("output_throughput", rate(totalOutput, duration));
    m.put("total_token_throughput", rate(totalInput + totalOutput, duration));
    List<Object> inputLens = new ArrayList<>();
    List<Object> outputLens = new ArrayList<>();
    List<Object> ttftList = new ArrayList<>();
    List<Object> itlList = new ArrayList<>();
    List<Object> latencies = new ArrayList<>();
    List<Object> startTimes = new ArrayList<>();
    List<Object> queueTimes = new ArrayList<>();
    List<Object> texts = new ArrayList<>();
    List<Object> errors = new ArrayList<>();
    List<Double> queues = new ArrayList<>();
    List<Double> e2elsWithQueue = new ArrayList<>();
    boolean infinite = Double.isInfinite(o.requestRate);
    for (int i = 0; i < rows.length; i++) {
      PerRequest r = rows[i];
      RequestRecord rec = records.get(i);
      // vLLM's client_queue_time: its send minus the request's arrival at the client (every request arrives at
      // once for an infinite rate, else at its scheduled time), i.e. the wait for a --max-concurrency slot
      double start = rec.wasSent() ? rec.sendNanos() / 1e9 : rec.intendedNanos() / 1e9;
      double queue = Math.max(0, start - (infinite ? 0 : rec.intendedNanos() / 1e9));
      inputLens.add((long) r.inputLen);
      outputLens.add((long) r.outputLen);
      ttftList.add(r.ttft);
      itlList.add(r.itl);
      latencies.add(r.latency);
      startTimes.add(start);
      queueTimes.add(queue);
      texts.add(r.text);
      errors.add(r.error);
      if (r.success) {
        queues.add(queue);
        e2elsWithQueue.add(r.latency + queue);
      }
    }
    m.put("input_lens", inputLens);
    m.put("output_lens", outputLens);
    m.put("ttfts", ttftList);
    m.put("itls", itlList);
    m.put("latencies", latencies);
    m.put("start_times", startTimes);
    m.put("queue_times", queueTimes);
    m.put("generated_texts", texts);
    m.put("errors", errors);
    m.put("max_output_tokens_per_s", series.peakOutputTokensPerSecond().value());
    m.put("max_concurrent_requests", (long) series.peakConcurrency().value());
    m.put("rtfx", 0.0); // input audio seconds per second of run: vLLM's ASR figure; no audio input is timed here
    m.putAll(o.extras);
    Map<String, List<Double>> values = Map.of("ttft", ttfts, "tpot", tpots, "itl", itls, "e2el", e2els,
        "client_queue_time", queues, "e2el_including_client_queue", e2elsWithQueue);
    for (String metric : METRICS) {
      if (!o.metrics.contains(metric)
          || (o.skipTokenizer && List.of("ttft", "tpot", "itl").contains(metric))
          || (metric.equals("client_queue_time") && o.maxConcurrency.isEmpty())
          || (metric.equals("e2el_including_client_queue") && (o.maxConcurrency.isEmpty() || infinite))) {
        continue; // as vLLM's client: no token metrics without a tokenizer, queue metrics only with a limit
      }
      // numpy's mean, population std and linear percentiles, as vLLM's client: 0 for a metric without values
      Distribution d = Distribution.of(values.get(metric).stream().mapToDouble(Double::doubleValue).toArray());
      m.put("mean_" + metric + "_ms", d.mean().orElse(0) * 1000);
      m.put("median_" + metric + "_ms", d.p50().orElse(0) * 1000);
      m.put("std_" + metric + "_ms", d.std().orElse(0) * 1000);
      for (double p : o.percentiles) {
        m.put("p" + percentWord(p) + "_" + metric + "_ms", d.percentile(p / 100).orElse(0) * 1000);
      }
    }
    run.interruption().ifPresent(i -> {
      // infermark's own keys, only in an interrupted run's file: vLLM's readers ignore keys they do not know.
      Map<String, Object> how = new LinkedHashMap<>();
      how.put("reason", i.reason());
      how.put("at", i.at().toString());
      how.put("at_s", i.atNanos() / 1e9);
      how.put("completed", i.completed());
      how.put("cancelled", i.cancelled());
      how.put("not_sent", i.notSent());
      how.put("unknown", i.unknown());
      m.put("interrupted", true);
      m.put("interruption", how);
    });
    return java.util.Collections.unmodifiableMap(m);
  }

  private static boolean isGood(PerRequest r, Map<String, Double> goodput) {
    if (goodput.isEmpty()) {
      return false;
    }
    for (Map.Entry<String, Double> e : goodput.entrySet()) {
      double v = switch (e.getKey()) {
        case "ttft" -> r.ttft;
        case "tpot" -> r.tpot();
        default -> r.latency;
      };
      if (v > e.getValue() / 1000) {
        return false;
      }
    }
    return true;
  }

  private static double rate(double count, double seconds) {
    return seconds > 0 ? count / seconds : 0.0;
  }

  /** vLLM's key word for a percentile: {@code 99} for whole numbers, {@code 99.9} otherwise. */
  static String percentWord(double p) {
    return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
  }

  /** How Python prints a float: {@code inf}, {@code 10.0}. */
  static String pythonFloat(double v) {
    return Double.isInfinite(v) ? "inf" : Double.toString(v);
  }
}
