package io.infermark.core.session;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One turn of a {@link Session}: a new user message sent with the session's whole history, then each
 * {@link Step} in order (a tool call or a fan-out), each followed by a model call one
 * {@code tool_call_depth} deeper. Immutable; built with {@link #builder(String)}.
 */
public final class Turn {

  private final String message;
  private final OptionalInt maxTokens;
  private final Optional<Latency> thinkBefore;
  private final Optional<Duration> notBefore;
  private final List<Step> steps;
  private final Map<String, String> tags;

  private Turn(Builder b) {
    this.message = b.message;
    this.maxTokens = b.maxTokens;
    this.thinkBefore = b.thinkBefore;
    this.notBefore = b.notBefore;
    this.steps = List.copyOf(b.steps);
    this.tags = Map.copyOf(b.tags);
  }

  /** A turn whose new user message is {@code message}. */
  public static Builder builder(String message) {
    return new Builder(message);
  }

  /** A turn of one model call with {@code message}. */
  public static Turn of(String message) {
    return builder(message).build();
  }

  /** The new user message. */
  public String message() {
    return message;
  }

  /** Output tokens every model call of the turn asks for exactly ({@code ignore_eos}), or the run's parameters. */
  public OptionalInt maxTokens() {
    return maxTokens;
  }

  /** This turn's own think time before it is sent, instead of the workload's. */
  public Optional<Latency> thinkBefore() {
    return thinkBefore;
  }

  /**
   * The earliest offset from the session's start at which the turn is sent (trace replay); it is never
   * sent before the previous turn ended.
   */
  public Optional<Duration> notBefore() {
    return notBefore;
  }

  /** The steps after the first model call, in order. */
  public List<Step> steps() {
    return steps;
  }

  /** Tags put on every record of the turn (e.g. a fidelity probe's). */
  public Map<String, String> tags() {
    return tags;
  }

  /** Model calls of the turn when every call succeeds first time (fan-out branches included). */
  public int modelCalls() {
    int n = 1;
    for (Step s : steps) {
      n += s instanceof FanOut f ? f.branches() + 1 : 1;
    }
    return n;
  }

  @Override
  public String toString() {
    return "Turn[" + message.length() + " chars, " + steps.size() + " steps"
        + (maxTokens.isPresent() ? ", " + maxTokens.getAsInt() + " output tokens" : "") + "]";
  }

  /** Builds a {@link Turn}. */
  public static final class Builder {
    private final String message;
    private OptionalInt maxTokens = OptionalInt.empty();
    private Optional<Latency> thinkBefore = Optional.empty();
    private Optional<Duration> notBefore = Optional.empty();
    private final List<Step> steps = new ArrayList<>();
    private final Map<String, String> tags = new LinkedHashMap<>();

    private Builder(String message) {
      this.message = Objects.requireNonNull(message, "message");
    }

    /** Every model call of the turn asks for exactly {@code tokens} output tokens. */
    public Builder maxTokens(int tokens) {
      if (tokens < 1) {
        throw new IllegalArgumentException("maxTokens must be >= 1, was " + tokens);
      }
      this.maxTokens = OptionalInt.of(tokens);
      return this;
    }

    /** Think time before this turn, instead of the workload's. */
    public Builder thinkBefore(Latency think) {
      this.thinkBefore = Optional.of(Objects.requireNonNull(think, "think"));
      return this;
    }

    /** Not sent before this offset from the session's start (trace replay). */
    public Builder notBefore(Duration offset) {
      Objects.requireNonNull(offset, "offset");
      if (offset.isNegative()) {
        throw new IllegalArgumentException("notBefore must be >= 0, was " + offset);
      }
      this.notBefore = Optional.of(offset);
      return this;
    }

    /** Calls a tool, then the model again. */
    public Builder tool(ToolCall tool) {
      steps.add(Objects.requireNonNull(tool, "tool"));
      return this;
    }

    /** Fans out to sub-agents and joins them, then calls the model again. */
    public Builder fanOut(FanOut fanOut) {
      steps.add(Objects.requireNonNull(fanOut, "fanOut"));
      return this;
    }

    /** Adds a step. */
    public Builder step(Step step) {
      steps.add(Objects.requireNonNull(step, "step"));
      return this;
    }

    /** A tag on every record of the turn. */
    public Builder tag(String name, String value) {
      tags.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** Returns the turn. */
    public Turn build() {
      return new Turn(this);
    }
  }
}
