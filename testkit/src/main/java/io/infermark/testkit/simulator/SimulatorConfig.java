package io.infermark.testkit.simulator;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * How a {@link Simulator} behaves: which model it serves, how fast it emits tokens, how many
 * requests it admits at once, and which faults it injects.
 *
 * <p>Instances are immutable; build them with {@link #builder()} or take {@link #defaults()}.
 * Every builder setter validates its argument and throws {@link IllegalArgumentException} saying
 * what was wrong, so a bad configuration fails where it is written, not when a request arrives.
 *
 * <p>Faults are decided per request from {@link #seed()} and the request's arrival sequence
 * number alone, so the same seed fails the same requests (the first, the seventh, ...) on every
 * run, however threads interleave.
 */
public final class SimulatorConfig {

  /** The model name served when none is configured. */
  public static final String DEFAULT_MODEL = "infermark-sim";

  private static final SimulatorConfig DEFAULTS = builder().build();

  private final String model;
  private final int port;
  private final Duration timeToFirstToken;
  private final Duration interTokenInterval;
  private final int defaultOutputTokens;
  private final int maxConcurrency;
  private final int tokensPerChunk;
  private final long seed;
  private final double serverErrorProbability;
  private final double disconnectProbability;
  private final int disconnectAfterTokens;

  private SimulatorConfig(Builder b) {
    this.model = b.model;
    this.port = b.port;
    this.timeToFirstToken = b.timeToFirstToken;
    this.interTokenInterval = b.interTokenInterval;
    this.defaultOutputTokens = b.defaultOutputTokens;
    this.maxConcurrency = b.maxConcurrency;
    this.tokensPerChunk = b.tokensPerChunk;
    this.seed = b.seed;
    this.serverErrorProbability = b.serverErrorProbability;
    this.disconnectProbability = b.disconnectProbability;
    this.disconnectAfterTokens = b.disconnectAfterTokens;
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

  /** The TCP port to bind on 127.0.0.1; 0 picks a free ephemeral port. */
  public int port() {
    return port;
  }

  /** Time from a request's admission to its first token. */
  public Duration timeToFirstToken() {
    return timeToFirstToken;
  }

  /** Time between consecutive tokens of one request. */
  public Duration interTokenInterval() {
    return interTokenInterval;
  }

  /** Output length, in tokens, of a request that sets no {@code max_tokens}: its natural length. */
  public int defaultOutputTokens() {
    return defaultOutputTokens;
  }

  /** How many requests generate at once, if limited; later requests wait in FIFO order. */
  public OptionalInt maxConcurrency() {
    return maxConcurrency == Integer.MAX_VALUE ? OptionalInt.empty() : OptionalInt.of(maxConcurrency);
  }

  /** How many tokens each streamed content chunk carries (the last one may carry fewer). */
  public int tokensPerChunk() {
    return tokensPerChunk;
  }

  /** The seed of output text, response ids and fault decisions. */
  public long seed() {
    return seed;
  }

  /** Probability that a generation request is answered with HTTP 500 instead of being served. */
  public double serverErrorProbability() {
    return serverErrorProbability;
  }

  /** Probability that a generation request's connection is dropped mid-response. */
  public double disconnectProbability() {
    return disconnectProbability;
  }

  /** How many tokens a dropped request streams before its connection is dropped. */
  public int disconnectAfterTokens() {
    return disconnectAfterTokens;
  }

  int maxConcurrencyOrUnlimited() {
    return maxConcurrency;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SimulatorConfig c && c.model.equals(model) && c.port == port
        && c.timeToFirstToken.equals(timeToFirstToken) && c.interTokenInterval.equals(interTokenInterval)
        && c.defaultOutputTokens == defaultOutputTokens && c.maxConcurrency == maxConcurrency
        && c.tokensPerChunk == tokensPerChunk && c.seed == seed
        && Double.compare(c.serverErrorProbability, serverErrorProbability) == 0
        && Double.compare(c.disconnectProbability, disconnectProbability) == 0
        && c.disconnectAfterTokens == disconnectAfterTokens;
  }

  @Override
  public int hashCode() {
    return Objects.hash(model, port, timeToFirstToken, interTokenInterval, defaultOutputTokens,
        maxConcurrency, tokensPerChunk, seed, serverErrorProbability, disconnectProbability,
        disconnectAfterTokens);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("SimulatorConfig{model=").append(model)
        .append(", port=").append(port == 0 ? "ephemeral" : Integer.toString(port))
        .append(", ttft=").append(millis(timeToFirstToken))
        .append(", itl=").append(millis(interTokenInterval))
        .append(", defaultOutputTokens=").append(defaultOutputTokens)
        .append(", maxConcurrency=")
        .append(maxConcurrency == Integer.MAX_VALUE ? "unlimited" : Integer.toString(maxConcurrency))
        .append(", tokensPerChunk=").append(tokensPerChunk)
        .append(", seed=").append(seed);
    if (serverErrorProbability > 0) {
      s.append(", serverErrors=").append(serverErrorProbability);
    }
    if (disconnectProbability > 0) {
      s.append(", disconnects=").append(disconnectProbability)
          .append(" after ").append(disconnectAfterTokens).append(" tokens");
    }
    return s.append('}').toString();
  }

  private static String millis(Duration d) {
    return d.toNanos() / 1_000_000.0 + "ms";
  }

  /** Collects and validates {@link SimulatorConfig} values. */
  public static final class Builder {

    private String model = DEFAULT_MODEL;
    private int port = 0;
    private Duration timeToFirstToken = Duration.ofMillis(20);
    private Duration interTokenInterval = Duration.ofMillis(5);
    private int defaultOutputTokens = 64;
    private int maxConcurrency = Integer.MAX_VALUE;
    private int tokensPerChunk = 1;
    private long seed = 0;
    private double serverErrorProbability = 0;
    private double disconnectProbability = 0;
    private int disconnectAfterTokens = 1;

    private Builder() {}

    private Builder(SimulatorConfig c) {
      this.model = c.model;
      this.port = c.port;
      this.timeToFirstToken = c.timeToFirstToken;
      this.interTokenInterval = c.interTokenInterval;
      this.defaultOutputTokens = c.defaultOutputTokens;
      this.maxConcurrency = c.maxConcurrency;
      this.tokensPerChunk = c.tokensPerChunk;
      this.seed = c.seed;
      this.serverErrorProbability = c.serverErrorProbability;
      this.disconnectProbability = c.disconnectProbability;
      this.disconnectAfterTokens = c.disconnectAfterTokens;
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

    /** The port to bind on 127.0.0.1, 1–65535, or 0 (the default) for a free ephemeral port. */
    public Builder port(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port must be 0 (ephemeral) or 1-65535, was " + port);
      }
      this.port = port;
      return this;
    }

    /** Time from admission to the first token, zero or more; default 20 ms. */
    public Builder timeToFirstToken(Duration ttft) {
      this.timeToFirstToken = nonNegative(ttft, "timeToFirstToken");
      return this;
    }

    /** Time between consecutive tokens, zero or more; default 5 ms. */
    public Builder interTokenInterval(Duration interval) {
      this.interTokenInterval = nonNegative(interval, "interTokenInterval");
      return this;
    }

    /**
     * Natural output length in tokens, at least 1; default 64. A request without
     * {@code ignore_eos} stops at {@code min(max_tokens, defaultOutputTokens)}.
     */
    public Builder defaultOutputTokens(int tokens) {
      this.defaultOutputTokens = atLeastOne(tokens, "defaultOutputTokens");
      return this;
    }

    /** The most requests generating at once, at least 1; default unlimited. */
    public Builder maxConcurrency(int requests) {
      this.maxConcurrency = atLeastOne(requests, "maxConcurrency");
      return this;
    }

    /** Removes a concurrency limit set earlier. */
    public Builder unlimitedConcurrency() {
      this.maxConcurrency = Integer.MAX_VALUE;
      return this;
    }

    /** Tokens per streamed content chunk, at least 1; default 1. */
    public Builder tokensPerChunk(int tokens) {
      this.tokensPerChunk = atLeastOne(tokens, "tokensPerChunk");
      return this;
    }

    /** The seed of output text, ids and fault decisions; default 0. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Answers this fraction of generation requests with HTTP 500 and an OpenAI-shaped error body,
     * immediately on arrival; default 0. Together with the disconnect probability it must not
     * exceed 1, because each request suffers at most one fault.
     */
    public Builder serverErrors(double probability) {
      checkFaults(probability(probability, "serverErrors probability"), disconnectProbability);
      this.serverErrorProbability = probability;
      return this;
    }

    /**
     * Drops the connection of this fraction of generation requests after {@code afterTokens}
     * tokens (0 drops before the first token); default none. A response that would have fewer
     * tokens is dropped after its last token, so a chosen request never completes cleanly.
     */
    public Builder disconnects(double probability, int afterTokens) {
      checkFaults(serverErrorProbability, probability(probability, "disconnects probability"));
      if (afterTokens < 0) {
        throw new IllegalArgumentException("disconnects afterTokens must be 0 or more, was " + afterTokens);
      }
      this.disconnectProbability = probability;
      this.disconnectAfterTokens = afterTokens;
      return this;
    }

    /** The immutable configuration. */
    public SimulatorConfig build() {
      return new SimulatorConfig(this);
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

    private static void checkFaults(double serverErrors, double disconnects) {
      if (serverErrors + disconnects > 1) {
        throw new IllegalArgumentException("serverErrors (" + serverErrors + ") + disconnects ("
            + disconnects + ") probabilities must not exceed 1: each request gets at most one fault");
      }
    }
  }
}
