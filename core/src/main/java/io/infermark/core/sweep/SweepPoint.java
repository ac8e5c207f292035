package io.infermark.core.sweep;

import io.infermark.core.RunResult;
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

  @Override
  public String toString() {
    return "SweepPoint[" + level + ": " + result + "]";
  }
}
