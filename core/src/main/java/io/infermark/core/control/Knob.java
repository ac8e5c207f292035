package io.infermark.core.control;

import java.util.Locale;
import java.util.Objects;

/**
 * A numeric setting a workload reads while a run goes and a {@code sweep.KnobController} (or the host)
 * changes: items per request of one modality, a batch size, a prompt length. Bounded: every value
 * set is clamped into {@code [min, max]}. Thread-safe (reads are a volatile read).
 *
 * <pre>{@code
 * Knob images = Knob.range("image items", 1, 8, 4);
 * // in the workload: int n = images.intValue();
 * }</pre>
 */
public final class Knob {

  private final String name;
  private final double min;
  private final double max;
  private volatile double value;

  private Knob(String name, double min, double max, double initial) {
    this.name = name;
    this.min = min;
    this.max = max;
    this.value = initial;
  }

  /**
   * A knob named {@code name} within {@code [min, max]} starting at {@code initial}.
   *
   * @throws IllegalArgumentException unless {@code min < max}, all finite, and initial within them
   */
  public static Knob range(String name, double min, double max, double initial) {
    Objects.requireNonNull(name, "name");
    if (!Double.isFinite(min) || !Double.isFinite(max) || !(min < max)) {
      throw new IllegalArgumentException("knob '" + name + "' needs finite min < max, was [" + min + ", " + max + "]");
    }
    if (!(initial >= min && initial <= max)) {
      throw new IllegalArgumentException("knob '" + name + "' starts at " + initial + ", outside [" + min + ", " + max
          + "]");
    }
    return new Knob(name, min, max, initial);
  }

  /** Sets the value, clamped into the range; returns the value set. NaN is ignored. */
  public double set(double v) {
    if (!Double.isNaN(v)) {
      value = Math.max(min, Math.min(max, v));
    }
    return value;
  }

  /**
   * Sets the value at {@code effort} (0 to 1, clamped) of the way from min to max:
   * {@code min + effort × (max − min)}; returns the value set.
   */
  public double setEffort(double effort) {
    return set(min + Math.max(0, Math.min(1, effort)) * (max - min));
  }

  /** The value now. */
  public double value() {
    return value;
  }

  /** The value now, rounded half up to a whole number (never outside the range's whole numbers). */
  public int intValue() {
    long r = Math.round(value);
    return (int) Math.max(Math.ceil(min), Math.min(Math.floor(max), r));
  }

  /** Its name. */
  public String name() {
    return name;
  }

  /** Its lower bound. */
  public double min() {
    return min;
  }

  /** Its upper bound. */
  public double max() {
    return max;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "Knob[%s = %s in [%s, %s]]", name, value, min, max);
  }
}
