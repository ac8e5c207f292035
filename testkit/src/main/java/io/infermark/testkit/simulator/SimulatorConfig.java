package io.infermark.testkit.simulator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * How a {@link Simulator} behaves: which model it serves, how it schedules requests and how fast
 * it emits tokens, what it answers, and which faults it injects.
 *
 * <p>Two timing models exist. Without an {@link #engine() engine profile} (the default) every
 * request runs alone: its first token {@link #timeToFirstToken()} after admission and each next
 * one {@link #interTokenInterval()} later, at most {@link #maxConcurrency()} at once: exact,
 * load-independent timing for testing measurement code. With {@link Builder#engine(EngineProfile)}
 * requests go through a continuous-batching engine ({@link EngineProfile}) whose latency rises
 * with load, KV pressure and prompt length like a real server's.
 *
 * <p>Instances are immutable; build them with {@link #builder()} or take {@link #defaults()}.
 * Every builder setter validates its argument and throws {@link IllegalArgumentException} saying
 * what was wrong, so a bad configuration fails where it is written, not when a request arrives.
 *
 * <p>Random choices (faults, natural output lengths, output text) are pure functions of
 * {@link #seed()} and the request's arrival sequence number or token position, so the same seed
 * fails the same requests (the first, the seventh, ...) on every run, however threads interleave.
 */
public final class SimulatorConfig {

  /** The model name served when none is configured. */
  public static final String DEFAULT_MODEL = "infermark-sim";

  private static final SimulatorConfig DEFAULTS = builder().build();
  private static final long LENGTH_SALT = 0x3C6EF372FE94F82BL;

  private final String model;
  private final String host;
  private final int port;
  private final Duration timeToFirstToken;
  private final Duration interTokenInterval;
  private final int maxConcurrency;
  private final EngineProfile engine;
  private final int outputTokensMin;
  private final int outputTokensMax;
  private final int tokensPerChunk;
  private final int reasoningTokens;
  private final long seed;
  private final List<FaultRule> faultRules;
  private final int timelineRetention;
  private final int maxModelLength;
  private final ColdStart coldStart;
  private final PromptBehaviour promptBehaviour;
  private final boolean tritonTokenCounts;

  private SimulatorConfig(Builder b) {
    this.model = b.model;
    this.host = b.host;
    this.port = b.port;
    this.timeToFirstToken = b.timeToFirstToken;
    this.interTokenInterval = b.interTokenInterval;
    this.maxConcurrency = b.maxConcurrency;
    this.engine = b.engine;
    this.outputTokensMin = b.outputTokensMin;
    this.outputTokensMax = b.outputTokensMax;
    this.tokensPerChunk = b.tokensPerChunk;
    this.reasoningTokens = b.reasoningTokens;
    this.seed = b.seed;
    this.faultRules = List.copyOf(b.faultRules);
    this.timelineRetention = b.timelineRetention;
    this.maxModelLength = b.maxModelLength;
    this.coldStart = b.coldStart;
    this.promptBehaviour = b.promptBehaviour;
    this.tritonTokenCounts = b.tritonTokenCounts;
  }

  /** How responses treat what the prompt says; {@link PromptBehaviour#ignorePrompts()} by default. */
  public PromptBehaviour promptBehaviour() {
    return promptBehaviour;
  }

  /** The model's cold start (weight loading and scale to zero), if modelled. */
  public Optional<ColdStart> coldStart() {
    return Optional.ofNullable(coldStart);
  }

  /** The default configuration: see each {@link Builder} setter for its default. */
  public static SimulatorConfig defaults() {
    return DEFAULTS;
  }

  /** A builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration's values, to derive a variant. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The model name the simulator serves and accepts in requests. */
  public String model() {
    return model;
  }

  /** The address to bind: {@code 127.0.0.1} unless configured otherwise. */
  public String host() {
    return host;
  }

  /** The TCP port to bind; 0 picks a free ephemeral port. */
  public int port() {
    return port;
  }

  /** Time from a request's admission to its first token, without an engine profile. */
  public Duration timeToFirstToken() {
    return timeToFirstToken;
  }

  /** Time between consecutive tokens of one request, without an engine profile. */
  public Duration interTokenInterval() {
    return interTokenInterval;
  }

  /** How many requests generate at once without an engine profile, if limited; later requests wait in FIFO order. */
  public OptionalInt maxConcurrency() {
    return maxConcurrency == Integer.MAX_VALUE ? OptionalInt.empty() : OptionalInt.of(maxConcurrency);
  }

  /** The continuous-batching engine that schedules requests, if one is configured. */
  public Optional<EngineProfile> engine() {
    return Optional.ofNullable(engine);
  }

  /**
   * Output length, in tokens, of a request that sets no {@code max_tokens}: its natural length
   * (the mean natural length, rounded down, when it is drawn from a range).
   */
  public int defaultOutputTokens() {
    return (outputTokensMin + outputTokensMax) / 2;
  }

  /** The shortest natural output length. */
  public int outputTokensMin() {
    return outputTokensMin;
  }

  /** The longest natural output length. */
  public int outputTokensMax() {
    return outputTokensMax;
  }

  /** How many tokens each streamed content chunk carries (the last one may carry fewer). */
  public int tokensPerChunk() {
    return tokensPerChunk;
  }

  /** How many leading output tokens of a chat response are reasoning ({@code reasoning_content}), 0 for none. */
  public int reasoningTokens() {
    return reasoningTokens;
  }

  /** The seed of output text, response ids, natural lengths and fault decisions. */
  public long seed() {
    return seed;
  }

  /** The fault rules, in the order they are tried. */
  public List<FaultRule> faultRules() {
    return faultRules;
  }

  /** How many finished requests' timelines the simulator keeps (the oldest are dropped first). */
  public int timelineRetention() {
    return timelineRetention;
  }

  /**
   * Whether the Triton endpoints take {@code return_num_output_tokens} (and answer with each event's
   * {@code num_output_tokens}); when not, they refuse it as an older backend's Triton does.
   */
  public boolean tritonTokenCounts() {
    return tritonTokenCounts;
  }

  /** The model's context length: prompt plus {@code max_tokens} beyond it is answered with HTTP 400. */
  public int maxModelLength() {
    return maxModelLength;
  }

  /** Probability that a generation request is answered with HTTP 500 instead of being served. */
  public double serverErrorProbability() {
    return probabilityOf(Fault.Kind.SERVER_ERROR);
  }

  /** Probability that a generation request's connection is dropped mid-response. */
  public double disconnectProbability() {
    return probabilityOf(Fault.Kind.DISCONNECT);
  }

  /** How many tokens a dropped request streams before its connection is dropped (1 unless configured). */
  public int disconnectAfterTokens() {
    return faultRules.stream().filter(r -> r.fault().kind() == Fault.Kind.DISCONNECT)
        .mapToInt(r -> r.fault().afterTokens()).findFirst().orElse(1);
  }

  private double probabilityOf(Fault.Kind kind) {
    return faultRules.stream().filter(r -> r.fault().kind() == kind).mapToDouble(FaultRule::probability).sum();
  }

  /** The natural output length of request {@code sequence}: fixed, or drawn uniformly from the range by the seed. */
  int naturalOutputTokens(long sequence) {
    if (outputTokensMin == outputTokensMax) {
      return outputTokensMin;
    }
    return outputTokensMin + (int) (Mix.unit(seed ^ LENGTH_SALT, sequence) * (outputTokensMax - outputTokensMin + 1));
  }

  int maxConcurrencyOrUnlimited() {
    return maxConcurrency;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SimulatorConfig c && c.model.equals(model) && c.host.equals(host) && c.port == port
        && c.timeToFirstToken.equals(timeToFirstToken) && c.interTokenInterval.equals(interTokenInterval)
        && c.maxConcurrency == maxConcurrency && Objects.equals(c.engine, engine)
        && c.outputTokensMin == outputTokensMin && c.outputTokensMax == outputTokensMax
        && c.tokensPerChunk == tokensPerChunk && c.reasoningTokens == reasoningTokens && c.seed == seed
        && c.faultRules.equals(faultRules) && c.timelineRetention == timelineRetention
        && c.maxModelLength == maxModelLength && Objects.equals(c.coldStart, coldStart)
        && c.promptBehaviour.equals(promptBehaviour) && c.tritonTokenCounts == tritonTokenCounts;
  }

  @Override
  public int hashCode() {
    return Objects.hash(model, host, port, timeToFirstToken, interTokenInterval, maxConcurrency, engine,
        outputTokensMin, outputTokensMax, tokensPerChunk, reasoningTokens, seed, faultRules, timelineRetention,
        maxModelLength, coldStart, promptBehaviour, tritonTokenCounts);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("SimulatorConfig{model=").append(model)
        .append(", port=").append(port == 0 ? "ephemeral" : Integer.toString(port));
    if (!host.equals(Builder.LOOPBACK)) {
      s.append(", host=").append(host);
    }
    String lengths = outputTokensMin == outputTokensMax ? Integer.toString(outputTokensMin)
        : outputTokensMin + ".." + outputTokensMax;
    if (engine != null) {
      s.append(", engine=").append(engine.name()).append(", defaultOutputTokens=").append(lengths);
    } else {
      s.append(", ttft=").append(millis(timeToFirstToken))
          .append(", itl=").append(millis(interTokenInterval))
          .append(", defaultOutputTokens=").append(lengths)
          .append(", maxConcurrency=")
          .append(maxConcurrency == Integer.MAX_VALUE ? "unlimited" : Integer.toString(maxConcurrency));
    }
    s.append(", tokensPerChunk=").append(tokensPerChunk);
    if (reasoningTokens > 0) {
      s.append(", reasoningTokens=").append(reasoningTokens);
    }
    s.append(", seed=").append(seed);
    if (coldStart != null) {
      s.append(", ").append(coldStart);
    }
    if (promptBehaviour.readsPrompts()) {
      s.append(", ").append(promptBehaviour);
    }
    if (!tritonTokenCounts) {
      s.append(", refuses return_num_output_tokens");
    }
    double errors = serverErrorProbability();
    if (errors > 0) {
      s.append(", serverErrors=").append(errors);
    }
    double drops = disconnectProbability();
    if (drops > 0) {
      s.append(", disconnects=").append(drops).append(" after ").append(disconnectAfterTokens()).append(" tokens");
    }
    for (FaultRule r : faultRules) {
      boolean shown = r.onRequests().isEmpty()
          && (r.fault().kind() == Fault.Kind.SERVER_ERROR || r.fault().kind() == Fault.Kind.DISCONNECT);
      if (!shown) {
        s.append(", fault ").append(r);
      }
    }
    return s.append('}').toString();
  }

  private static String millis(Duration d) {
    return d.toNanos() / 1_000_000.0 + "ms";
  }

  /** Collects and validates {@link SimulatorConfig} values. */
  public static final class Builder {

    static final String LOOPBACK = "127.0.0.1";

    private String model = DEFAULT_MODEL;
    private String host = LOOPBACK;
    private int port = 0;
    private Duration timeToFirstToken = Duration.ofMillis(20);
    private Duration interTokenInterval = Duration.ofMillis(5);
    private int maxConcurrency = Integer.MAX_VALUE;
    private EngineProfile engine;
    private int outputTokensMin = 64;
    private int outputTokensMax = 64;
    private int tokensPerChunk = 1;
    private int reasoningTokens = 0;
    private long seed = 0;
    private final List<FaultRule> faultRules = new ArrayList<>();
    private int timelineRetention = 100_000;
    private int maxModelLength = 131_072;
    private ColdStart coldStart;
    private PromptBehaviour promptBehaviour = PromptBehaviour.ignorePrompts();
    private boolean tritonTokenCounts = true;

    private Builder() {}

    private Builder(SimulatorConfig c) {
      this.model = c.model;
      this.host = c.host;
      this.port = c.port;
      this.timeToFirstToken = c.timeToFirstToken;
      this.interTokenInterval = c.interTokenInterval;
      this.maxConcurrency = c.maxConcurrency;
      this.engine = c.engine;
      this.outputTokensMin = c.outputTokensMin;
      this.outputTokensMax = c.outputTokensMax;
      this.tokensPerChunk = c.tokensPerChunk;
      this.reasoningTokens = c.reasoningTokens;
      this.seed = c.seed;
      this.faultRules.addAll(c.faultRules);
      this.coldStart = c.coldStart;
      this.promptBehaviour = c.promptBehaviour;
      this.timelineRetention = c.timelineRetention;
      this.maxModelLength = c.maxModelLength;
      this.tritonTokenCounts = c.tritonTokenCounts;
    }

    /** The served model name; default {@value SimulatorConfig#DEFAULT_MODEL}. */
    public Builder model(String model) {
      Objects.requireNonNull(model, "model");
      if (model.isBlank()) {
        throw new IllegalArgumentException("model must not be blank");
      }
      this.model = model;
      return this;
    }

    /**
     * The IP address to bind, as a literal; default {@code 127.0.0.1} (only this machine can
     * connect). {@code 0.0.0.0} serves every interface.
     */
    public Builder host(String host) {
      Objects.requireNonNull(host, "host");
      if (!host.matches("[0-9.]+|[0-9a-fA-F:]+") || host.isEmpty()) {
        throw new IllegalArgumentException("host must be an IP address literal such as 127.0.0.1 or 0.0.0.0, was '"
            + host + "'");
      }
      this.host = host;
      return this;
    }

    /** The port to bind, 1–65535, or 0 (the default) for a free ephemeral port. */
    public Builder port(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port must be 0 (ephemeral) or 1-65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /** Time from admission to the first token without an engine profile, zero or more; default 20 ms. */
    public Builder timeToFirstToken(Duration ttft) {
      this.timeToFirstToken = nonNegative(ttft, "timeToFirstToken");
      return this;
    }

    /** Time between consecutive tokens without an engine profile, zero or more; default 5 ms. */
    public Builder interTokenInterval(Duration interval) {
      this.interTokenInterval = nonNegative(interval, "interTokenInterval");
      return this;
    }

    /** The most requests generating at once without an engine profile, at least 1; default unlimited. */
    public Builder maxConcurrency(int requests) {
      this.maxConcurrency = atLeastOne(requests, "maxConcurrency");
      return this;
    }

    /** Removes a concurrency limit set earlier. */
    public Builder unlimitedConcurrency() {
      this.maxConcurrency = Integer.MAX_VALUE;
      return this;
    }

    /** Schedules requests with a continuous-batching engine of this profile (replacing fixed TTFT and interval). */
    public Builder engine(EngineProfile profile) {
      this.engine = Objects.requireNonNull(profile, "profile");
      return this;
    }

    /** Goes back to fixed timing: no engine. */
    public Builder fixedTiming() {
      this.engine = null;
      return this;
    }

    /**
     * Natural output length in tokens, at least 1; default 64. A request without
     * {@code ignore_eos} stops at {@code min(max_tokens, natural length)}.
     */
    public Builder defaultOutputTokens(int tokens) {
      this.outputTokensMin = atLeastOne(tokens, "defaultOutputTokens");
      this.outputTokensMax = tokens;
      return this;
    }

    /** Draws each request's natural output length uniformly from {@code [min, max]}, by seed and arrival sequence. */
    public Builder outputTokensBetween(int min, int max) {
      atLeastOne(min, "outputTokensBetween min");
      if (max < min) {
        throw new IllegalArgumentException("outputTokensBetween max (" + max + ") must be >= min (" + min + ")");
      }
      this.outputTokensMin = min;
      this.outputTokensMax = max;
      return this;
    }

    /** Tokens per streamed content chunk, at least 1; default 1. */
    public Builder tokensPerChunk(int tokens) {
      this.tokensPerChunk = atLeastOne(tokens, "tokensPerChunk");
      return this;
    }

    /**
     * The first {@code tokens} output tokens of every chat response are reasoning, streamed as
     * {@code delta.reasoning_content} (and returned as {@code message.reasoning_content}); default 0.
     */
    public Builder reasoningTokens(int tokens) {
      if (tokens < 0) {
        throw new IllegalArgumentException("reasoningTokens must be 0 or more, was " + tokens);
      }
      this.reasoningTokens = tokens;
      return this;
    }

    /** The seed of output text, ids, natural lengths and fault decisions; default 0. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Adds a fault that strikes each generation request with {@code probability}. All
     * probabilities together must not exceed 1: each request suffers at most one fault.
     */
    public Builder fault(Fault fault, double probability) {
      Objects.requireNonNull(fault, "fault");
      if (!(probability >= 0 && probability <= 1)) {
        throw new IllegalArgumentException(fault.kind() + " probability must be between 0 and 1, was " + probability);
      }
      checkTotal(probability);
      faultRules.add(new FaultRule(fault, probability, List.of()));
      return this;
    }

    /** Adds a fault that strikes the generation requests with these arrival sequence numbers (0 is the first). */
    public Builder faultOnRequests(Fault fault, long... requests) {
      Objects.requireNonNull(fault, "fault");
      if (requests.length == 0) {
        throw new IllegalArgumentException("faultOnRequests needs at least one request sequence number");
      }
      List<Long> list = new ArrayList<>();
      for (long r : requests) {
        list.add(r);
      }
      faultRules.add(new FaultRule(fault, 0, list));
      return this;
    }

    /** Removes every fault rule. */
    public Builder noFaults() {
      faultRules.clear();
      return this;
    }

    /**
     * Answers this fraction of generation requests with HTTP 500 and an OpenAI-shaped error body,
     * immediately on arrival; default 0. Replaces earlier probabilistic server errors. Together
     * with the other fault probabilities it must not exceed 1, because each request suffers at
     * most one fault.
     */
    public Builder serverErrors(double probability) {
      probability(probability, "serverErrors probability");
      replace(Fault.Kind.SERVER_ERROR, Fault.serverError(), probability);
      return this;
    }

    /**
     * Drops the connection of this fraction of generation requests after {@code afterTokens}
     * tokens (see {@link Fault#disconnect(int)}); default none. Replaces earlier probabilistic
     * disconnects.
     */
    public Builder disconnects(double probability, int afterTokens) {
      probability(probability, "disconnects probability");
      if (afterTokens < 0) {
        throw new IllegalArgumentException("disconnects afterTokens must be 0 or more, was " + afterTokens);
      }
      replace(Fault.Kind.DISCONNECT, Fault.disconnect(afterTokens), probability);
      return this;
    }

    /** How many finished requests' timelines to keep, at least 1; default 100,000 (oldest dropped first). */
    public Builder timelineRetention(int timelines) {
      this.timelineRetention = atLeastOne(timelines, "timelineRetention");
      return this;
    }

    /** The context length in tokens, at least 2; default 131,072 (Llama 3.1's). */
    public Builder maxModelLength(int tokens) {
      if (tokens < 2) {
        throw new IllegalArgumentException("maxModelLength must be at least 2, was " + tokens);
      }
      this.maxModelLength = tokens;
      return this;
    }

    /**
     * Whether the Triton endpoints ({@code generate_stream}, {@code generate} and gRPC's
     * {@code ModelStreamInfer}) take the input {@code return_num_output_tokens}; default true. False serves a
     * model that does not declare it (an older vLLM backend, TensorRT-LLM's stock {@code ensemble}): a request
     * that sends it is refused with Triton's 400 {@code unexpected inference input 'return_num_output_tokens'
     * for model '...'} (gRPC {@code INVALID_ARGUMENT}).
     */
    public Builder tritonTokenCounts(boolean taken) {
      this.tritonTokenCounts = taken;
      return this;
    }

    /** Models loading the model's weights (a cold start, and scale to zero if set); default none. */
    public Builder coldStart(ColdStart coldStart) {
      this.coldStart = Objects.requireNonNull(coldStart, "coldStart");
      return this;
    }

    /**
     * How responses treat what the prompt says: {@link PromptBehaviour#ignorePrompts()} (the default),
     * {@link PromptBehaviour#followInjections()}, {@link PromptBehaviour#leakPreviousContext()} or
     * {@link PromptBehaviour#echoContext()}.
     */
    public Builder promptBehaviour(PromptBehaviour behaviour) {
      this.promptBehaviour = Objects.requireNonNull(behaviour, "behaviour");
      return this;
    }

    /** Models no cold start: the model is always loaded. */
    public Builder noColdStart() {
      this.coldStart = null;
      return this;
    }

    /** The immutable configuration. */
    public SimulatorConfig build() {
      return new SimulatorConfig(this);
    }

    private void replace(Fault.Kind kind, Fault fault, double probability) {
      List<FaultRule> kept = new ArrayList<>();
      for (FaultRule r : faultRules) {
        if (!(r.fault().kind() == kind && r.onRequests().isEmpty())) {
          kept.add(r);
        }
      }
      double others = kept.stream().mapToDouble(FaultRule::probability).sum();
      if (others + probability > 1 + 1e-12) {
        throw new IllegalArgumentException(describeTotal(kept, ruleName(kind) + " (" + probability + ")")
            + " probabilities must not exceed 1: each request gets at most one fault");
      }
      faultRules.clear();
      faultRules.addAll(kept);
      if (probability > 0) {
        faultRules.add(new FaultRule(fault, probability, List.of()));
      }
    }

    private void checkTotal(double added) {
      double total = faultRules.stream().mapToDouble(FaultRule::probability).sum() + added;
      if (total > 1 + 1e-12) {
        throw new IllegalArgumentException(describeTotal(faultRules, Double.toString(added))
            + " probabilities must not exceed 1: each request gets at most one fault");
      }
    }

    private static String ruleName(Fault.Kind kind) {
      return switch (kind) {
        case SERVER_ERROR -> "serverErrors";
        case DISCONNECT -> "disconnects";
        default -> kind.name();
      };
    }

    private static String describeTotal(List<FaultRule> rules, String added) {
      StringBuilder s = new StringBuilder();
      for (FaultRule r : rules) {
        if (r.probability() > 0) {
          s.append(ruleName(r.fault().kind())).append(" (").append(r.probability()).append(") + ");
        }
      }
      return s.append(added).toString();
    }

    private static Duration nonNegative(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative()) {
        throw new IllegalArgumentException(name + " must not be negative, was " + d);
      }
      try {
        d.toNanos();
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException(name + " is too long to express in nanoseconds: " + d, e);
      }
      return d;
    }

    private static int atLeastOne(int value, String name) {
      if (value < 1) {
        throw new IllegalArgumentException(name + " must be at least 1, was " + value);
      }
      return value;
    }

    private static double probability(double p, String name) {
      if (!(p >= 0 && p <= 1)) {
        throw new IllegalArgumentException(name + " must be between 0 and 1, was " + p);
      }
      return p;
    }
  }
}
