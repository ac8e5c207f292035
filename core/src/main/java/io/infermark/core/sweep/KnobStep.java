package io.infermark.core.sweep;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * One step of a {@link KnobController}'s trajectory.
 *
 * @param elapsedNanos time since the run's origin
 * @param measured the signal's value, empty when it had nothing to measure yet
 * @param effort the controller's output, 0 to 1
 * @param values each knob's value from this step on, by name
 */
public record KnobStep(long elapsedNanos, OptionalDouble measured, double effort, Map<String, Double> values) {

  /** Validates and copies. */
  public KnobStep {
    Objects.requireNonNull(measured, "measured");
    values = Map.copyOf(values);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "KnobStep[%.3f s, measured %s, effort %.3f, %s]", elapsedNanos / 1e9,
        measured.isPresent() ? String.format(Locale.ROOT, "%.6g", measured.getAsDouble()) : "none", effort,
        new java.util.TreeMap<>(values));
  }
}
