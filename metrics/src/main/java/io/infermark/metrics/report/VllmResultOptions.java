package io.infermark.metrics.report;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What vLLM writes beside the measurements of a {@link VllmResultJson}: the run's set-up as its command line gave it
 * (a mirror of {@code vllm bench serve}'s flags), and which statistics to write. Build with
 * {@link #builder(String, String)}.
 */
public final class VllmResultOptions {

  /** The metrics {@code --percentile-metrics} takes, as vLLM's current client names them. */
  static final List<String> METRICS = List.of("ttft", "tpot", "itl", "e2el", "client_queue_time",
      "e2el_including_client_queue");
  /** The {@code date} key's format, which also names the file. */
  static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT);

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

  final String backend;
  final String modelId;
  final String tokenizerId;
  final OptionalInt numPrompts;
  final double requestRate;
  final double burstiness;
  final OptionalInt maxConcurrency;
  final List<String> metrics;
  final double[] percentiles;
  final Map<String, Double> goodput;
  final boolean chat;
  final LocalDateTime date;
  final Map<String, String> metadata;
  final java.util.Optional<String> label;
  final boolean skipTokenizer;
  final boolean detailed;
  final java.util.Optional<RampUp> rampUp;
  final Map<String, Object> extras;

  private VllmResultOptions(Builder b) {
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
        .orElse(VllmResultJson.pythonFloat(requestRate) + "qps");
    return prefix + "-" + load + concurrency + "-" + base + "-" + DATE.format(date) + ".json";
  }

  @Override
  public String toString() {
    return "VllmResultOptions[" + backend + ", " + modelId + ", rate " + VllmResultJson.pythonFloat(requestRate)
        + ", metrics " + metrics + ", percentiles " + Arrays.toString(percentiles) + "]";
  }

  /** Configures {@link VllmResultOptions}. */
  public static final class Builder {
    final String backend;
    final String modelId;
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
    final Map<String, String> metadata = new LinkedHashMap<>();
    private java.util.Optional<String> label = java.util.Optional.empty();
    private boolean skipTokenizer;
    private boolean detailed = true;
    private java.util.Optional<RampUp> rampUp = java.util.Optional.empty();
    final Map<String, Object> extras = new LinkedHashMap<>();

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

    /** The {@code date} written and used in {@link VllmResultOptions#fileName()}; now by default. */
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
     * them only with {@code --save-detailed}. True by default; {@link VllmResultJson#result} always has them.
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
    public VllmResultOptions build() {
      return new VllmResultOptions(this);
    }
  }
}
