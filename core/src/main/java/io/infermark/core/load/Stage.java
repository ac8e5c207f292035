package io.infermark.core.load;

import java.time.Duration;
import java.util.Objects;

/**
 * One stage of a {@linkplain ArrivalProcess#sequence(java.util.List) sequence}: an arrival process
 * run for a duration, its schedule starting afresh at the stage's start.
 *
 * @param process the arrivals during the stage
 * @param duration how long the stage lasts, > 0
 */
public record Stage(ArrivalProcess process, Duration duration) {

  /** Validates. */
  public Stage {
    Objects.requireNonNull(process, "process");
    Rates.positiveNanos(duration, "stage duration");
  }

  /** A stage of {@code process} lasting {@code duration}. */
  public static Stage of(ArrivalProcess process, Duration duration) {
    return new Stage(process, duration);
  }

  @Override
  public String toString() {
    return process + " for " + duration;
  }
}
