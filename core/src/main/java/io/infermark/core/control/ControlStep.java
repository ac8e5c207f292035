package io.infermark.core.control;

import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * One step of a rate controller's trajectory: when it looked, what the signal read, and the offered
 * rate it chose for the next interval.
 *
 * @param elapsedNanos time since the run's origin
 * @param measured the signal's value, empty when it had nothing to measure yet
 * @param rate the offered rate in requests/s from this step on
 */
public record ControlStep(long elapsedNanos, OptionalDouble measured, double rate) {

  /** Validates. */
  public ControlStep {
    Objects.requireNonNull(measured, "measured");
    if (!(rate >= 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("rate must be finite and >= 0, was " + rate);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ControlStep[%.3f s, measured %s, rate %.3f/s]", elapsedNanos / 1e9,
        measured.isPresent() ? String.format(Locale.ROOT, "%.6g", measured.getAsDouble()) : "none", rate);
  }
}
