package io.infermark.core.capture;

import java.util.OptionalInt;
import java.util.StringJoiner;

/**
 * Token counts a server reported for one request ({@code usage} in OpenAI-compatible APIs,
 * {@code eval_count} in Ollama, {@code details} in TGI, and so on). Any count may be absent.
 *
 * <p>Servers report usage incrementally (vLLM's {@code continuous_usage_stats}, Anthropic's
 * {@code message_start} then {@code message_delta}); {@link #merge(Usage)} folds a later report
 * into an earlier one.
 */
public final class Usage {

  private static final int ABSENT = -1;

  /** Usage with no counts at all. */
  public static final Usage NONE = new Usage(ABSENT, ABSENT, ABSENT, ABSENT, ABSENT);

  private final int promptTokens;
  private final int completionTokens;
  private final int totalTokens;
  private final int reasoningTokens;
  private final int cachedPromptTokens;

  private Usage(int prompt, int completion, int total, int reasoning, int cached) {
    this.promptTokens = prompt;
    this.completionTokens = completion;
    this.totalTokens = total;
    this.reasoningTokens = reasoning;
    this.cachedPromptTokens = cached;
  }

  /** A builder with every count absent. */
  public static Builder builder() {
    return new Builder();
  }

  /** Usage with prompt and completion counts; the total is their sum. */
  public static Usage of(int promptTokens, int completionTokens) {
    return builder().promptTokens(promptTokens).completionTokens(completionTokens)
        .totalTokens(promptTokens + completionTokens).build();
  }

  /** Input (prompt) tokens, if reported. */
  public OptionalInt promptTokens() {
    return opt(promptTokens);
  }

  /** Output (completion) tokens including reasoning tokens, if reported. */
  public OptionalInt completionTokens() {
    return opt(completionTokens);
  }

  /** Total tokens as the server reported it, if reported. */
  public OptionalInt totalTokens() {
    return opt(totalTokens);
  }

  /** Reasoning tokens (a subset of completion tokens), if reported. */
  public OptionalInt reasoningTokens() {
    return opt(reasoningTokens);
  }

  /** Prompt tokens served from a prefix cache, if reported. */
  public OptionalInt cachedPromptTokens() {
    return opt(cachedPromptTokens);
  }

  /** True when no count is present. */
  public boolean isEmpty() {
    return promptTokens < 0 && completionTokens < 0 && totalTokens < 0 && reasoningTokens < 0
        && cachedPromptTokens < 0;
  }

  /** Returns this usage with every count that {@code later} reports replaced by the later value. */
  public Usage merge(Usage later) {
    if (later.isEmpty()) {
      return this;
    }
    if (isEmpty()) {
      return later;
    }
    return new Usage(pick(later.promptTokens, promptTokens), pick(later.completionTokens, completionTokens),
        pick(later.totalTokens, totalTokens), pick(later.reasoningTokens, reasoningTokens),
        pick(later.cachedPromptTokens, cachedPromptTokens));
  }

  private static int pick(int later, int earlier) {
    return later >= 0 ? later : earlier;
  }

  private static OptionalInt opt(int v) {
    return v < 0 ? OptionalInt.empty() : OptionalInt.of(v);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Usage u && u.promptTokens == promptTokens && u.completionTokens == completionTokens
        && u.totalTokens == totalTokens && u.reasoningTokens == reasoningTokens
        && u.cachedPromptTokens == cachedPromptTokens;
  }

  @Override
  public int hashCode() {
    int h = promptTokens;
    h = 31 * h + completionTokens;
    h = 31 * h + totalTokens;
    h = 31 * h + reasoningTokens;
    return 31 * h + cachedPromptTokens;
  }

  @Override
  public String toString() {
    if (isEmpty()) {
      return "Usage[none]";
    }
    StringJoiner j = new StringJoiner(", ", "Usage[", "]");
    add(j, "prompt", promptTokens);
    add(j, "completion", completionTokens);
    add(j, "total", totalTokens);
    add(j, "reasoning", reasoningTokens);
    add(j, "cached", cachedPromptTokens);
    return j.toString();
  }

  private static void add(StringJoiner j, String name, int v) {
    if (v >= 0) {
      j.add(name + "=" + v);
    }
  }

  /**
   * A usage from counts of which a negative one is unknown (absent), as a parser holds them after reading a
   * usage object whose fields may be missing; {@link #NONE} when every count is unknown.
   */
  public static Usage ofKnownCounts(int promptTokens, int completionTokens, int totalTokens, int reasoningTokens,
      int cachedPromptTokens) {
    return new Usage(known(promptTokens), known(completionTokens), known(totalTokens), known(reasoningTokens),
        known(cachedPromptTokens)).orNone();
  }

  private static int known(int count) {
    return count < 0 ? ABSENT : count;
  }

  private Usage orNone() {
    return isEmpty() ? NONE : this;
  }

  /** Builds a {@link Usage}; counts that are never set stay absent. */
  public static final class Builder {
    private int prompt = ABSENT;
    private int completion = ABSENT;
    private int total = ABSENT;
    private int reasoning = ABSENT;
    private int cached = ABSENT;

    private Builder() {}

    /** Sets the prompt token count. */
    public Builder promptTokens(int n) {
      prompt = check(n, "promptTokens");
      return this;
    }

    /** Sets the completion token count. */
    public Builder completionTokens(int n) {
      completion = check(n, "completionTokens");
      return this;
    }

    /** Sets the total token count. */
    public Builder totalTokens(int n) {
      total = check(n, "totalTokens");
      return this;
    }

    /** Sets the reasoning token count. */
    public Builder reasoningTokens(int n) {
      reasoning = check(n, "reasoningTokens");
      return this;
    }

    /** Sets the cached prompt token count. */
    public Builder cachedPromptTokens(int n) {
      cached = check(n, "cachedPromptTokens");
      return this;
    }

    /** Returns the usage. */
    public Usage build() {
      return new Usage(prompt, completion, total, reasoning, cached).orNone();
    }

    private static int check(int n, String name) {
      if (n < 0) {
        throw new IllegalArgumentException(name + " must be >= 0, was " + n);
      }
      return n;
    }
  }
}
