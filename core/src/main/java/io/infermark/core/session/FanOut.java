package io.infermark.core.session;

import java.util.Locale;
import java.util.OptionalInt;

/**
 * A fan-out to {@code branches} sub-agent calls sent in parallel, each with a fresh context of one task
 * message of {@code taskTokens} words, joined when the slowest has ended; their replies then join the
 * session's history as one message, and the turn continues with a model call one depth deeper.
 *
 * @param branches parallel sub-agent calls, >= 1
 * @param taskTokens words of each branch's task message, >= 1
 * @param maxTokens output tokens each branch asks for, or empty for the run's parameters
 */
public record FanOut(int branches, int taskTokens, OptionalInt maxTokens) implements Step {

  /** Validates the fan-out. */
  public FanOut {
    if (branches < 1) {
      throw new IllegalArgumentException("a fan-out needs >= 1 branch, was " + branches);
    }
    if (taskTokens < 1) {
      throw new IllegalArgumentException("taskTokens must be >= 1, was " + taskTokens);
    }
    if (maxTokens == null) {
      maxTokens = OptionalInt.empty();
    }
    maxTokens.ifPresent(m -> {
      if (m < 1) {
        throw new IllegalArgumentException("maxTokens must be >= 1, was " + m);
      }
    });
  }

  /** {@code branches} sub-agents with 64-word tasks and the run's parameters. */
  public static FanOut of(int branches) {
    return new FanOut(branches, 64, OptionalInt.empty());
  }

  /** This fan-out with each branch asking for exactly {@code tokens} output tokens. */
  public FanOut maxTokens(int tokens) {
    return new FanOut(branches, taskTokens, OptionalInt.of(tokens));
  }

  /** This fan-out with tasks of {@code tokens} words. */
  public FanOut taskTokens(int tokens) {
    return new FanOut(branches, tokens, maxTokens);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "FanOut[%d branches, %d task tokens%s]", branches, taskTokens,
        maxTokens.isPresent() ? ", max " + maxTokens.getAsInt() + " tokens" : "");
  }
}
