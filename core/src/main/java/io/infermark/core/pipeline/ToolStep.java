package io.infermark.core.pipeline;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One tool call of an {@link AgentSessionTarget} session: the tool, how long the session waits for
 * it, and the fallback used when it times out or fails.
 *
 * @param name the step's name, in record tags ({@code agent.<name>.*}); letters, digits, {@code _} and {@code -}
 * @param tool the tool
 * @param timeout how long to wait for it, &gt; 0
 * @param fallback the tool to call instead when it times out or throws, if any
 */
public record ToolStep(String name, Tool tool, Duration timeout, Optional<Tool> fallback) {

  /** Validates. */
  public ToolStep {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(fallback, "fallback");
    if (!name.matches("[A-Za-z0-9_-]+")) {
      throw new IllegalArgumentException("tool step name must be letters, digits, _ or -, was '" + name + "'");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be > 0, was " + timeout);
    }
  }

  /** A step without a fallback: a timeout or failure fails the session. */
  public static ToolStep of(String name, Tool tool, Duration timeout) {
    return new ToolStep(name, tool, timeout, Optional.empty());
  }

  /** This step with a fallback. */
  public ToolStep withFallback(Tool fallback) {
    return new ToolStep(name, tool, timeout, Optional.of(fallback));
  }

  @Override
  public String toString() {
    return "ToolStep[" + name + ", timeout " + timeout + (fallback.isPresent() ? ", with fallback" : "") + "]";
  }
}
