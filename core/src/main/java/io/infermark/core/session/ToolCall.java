package io.infermark.core.session;

import java.util.Locale;
import java.util.Objects;

/**
 * A client-side tool the agent calls between two model calls of a turn: it takes {@code latency}
 * (waited on the engine's timer, no thread sleeps), fails with probability {@code failureProbability}
 * (each failed attempt is retried under the session's {@link RetryPolicy}), and returns a result of
 * {@code resultTokens} words that joins the history before the next model call.
 *
 * @param name the tool's name, shown in the result message
 * @param latency how long one attempt takes
 * @param failureProbability chance that one attempt fails, in [0, 1)
 * @param resultTokens words of the result text, >= 0
 */
public record ToolCall(String name, Latency latency, double failureProbability, int resultTokens) implements Step {

  /** Validates the call. */
  public ToolCall {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(latency, "latency");
    if (name.isBlank()) {
      throw new IllegalArgumentException("a tool needs a name");
    }
    if (!(failureProbability >= 0 && failureProbability < 1)) {
      throw new IllegalArgumentException("failureProbability must be in [0, 1), was " + failureProbability);
    }
    if (resultTokens < 0) {
      throw new IllegalArgumentException("resultTokens must be >= 0, was " + resultTokens);
    }
  }

  /** A tool that never fails and returns 32 words. */
  public static ToolCall of(String name, Latency latency) {
    return new ToolCall(name, latency, 0, 32);
  }

  /** This tool failing with probability {@code p}. */
  public ToolCall failing(double p) {
    return new ToolCall(name, latency, p, resultTokens);
  }

  /** This tool returning {@code tokens} words. */
  public ToolCall resultTokens(int tokens) {
    return new ToolCall(name, latency, failureProbability, tokens);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ToolCall[%s, %s, failure %s, %d result tokens]", name, latency,
        failureProbability, resultTokens);
  }
}
