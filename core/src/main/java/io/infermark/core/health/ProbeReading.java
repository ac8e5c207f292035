package io.infermark.core.health;

import java.util.Objects;

/**
 * What one {@link Probe} measured during a run.
 *
 * @param name the probe's name
 * @param lateness its lateness samples, ns
 */
public record ProbeReading(String name, LatencyStats lateness) {

  /** Validates. */
  public ProbeReading {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(lateness, "lateness");
  }

  @Override
  public String toString() {
    return "ProbeReading[" + name + ": " + lateness + "]";
  }
}
