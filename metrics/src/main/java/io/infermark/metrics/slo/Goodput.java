package io.infermark.metrics.slo;

import java.util.Locale;
import java.util.OptionalDouble;

/**
 * Requests per second that met every per-request objective of an {@link SloSet}, over the same
 * measurement window as the run's throughput (so goodput ≤ request throughput). Failed measured
 * requests, never-sent ones included, count as misses; warmup requests count for nothing. With no
 * per-request objective in the set, every successful request meets them.
 *
 * @param measured measured requests considered
 * @param met requests that succeeded and met every per-request objective
 * @param goodputRps met requests per second of the window; empty without a window
 */
public record Goodput(int measured, int met, OptionalDouble goodputRps) {

  /** Validates. */
  public Goodput {
    if (measured < 0 || met < 0 || met > measured) {
      throw new IllegalArgumentException("need 0 <= met (" + met + ") <= measured (" + measured + ")");
    }
  }

  /** The fraction of measured requests that met every objective; empty when none were measured. */
  public OptionalDouble fraction() {
    return measured == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) met / measured);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "Goodput[%d of %d requests met every SLO%s]", met, measured,
        goodputRps.isPresent() ? String.format(Locale.ROOT, ", %.3f req/s", goodputRps.getAsDouble()) : "");
  }
}
