package io.infermark.core.sweep;

import io.infermark.core.RunResult;
import io.infermark.core.health.ClientHealth;
import java.util.Objects;

/**
 * One level of a sweep and the run at it.
 *
 * @param level the load level (a rate, a concurrency, a grid point)
 * @param result the run
 */
public record SweepPoint<L>(L level, RunResult result) {

  /** Validates. */
  public SweepPoint {
    Objects.requireNonNull(level, "level");
    Objects.requireNonNull(result, "result");
  }

  /** Whether the client could be trusted at this level: the run's {@link RunResult#clientHealth()}. */
  public ClientHealth clientHealth() {
    return result.clientHealth();
  }

  @Override
  public String toString() {
    return "SweepPoint[" + level + ": " + result + "]";
  }
}
