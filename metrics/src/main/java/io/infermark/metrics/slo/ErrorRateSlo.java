package io.infermark.metrics.slo;

import java.util.Locale;

/**
 * A run-level objective: failed measured requests (every {@link io.infermark.core.capture.ErrorCategory},
 * never-sent ones included) divided by measured requests must be at most {@code maxFraction}.
 *
 * @param maxFraction in [0, 1]: 0.01 for 1 %
 */
public record ErrorRateSlo(double maxFraction) implements Slo {

  /** Validates. */
  public ErrorRateSlo {
    if (!(maxFraction >= 0 && maxFraction <= 1)) {
      throw new IllegalArgumentException("maxFraction must be in [0, 1] (0.01 for 1 %), was " + maxFraction);
    }
  }

  @Override
  public String name() {
    return "error rate <= " + LatencySlo.trim(maxFraction * 100) + " %";
  }

  @Override
  public boolean perRequest() {
    return false;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ErrorRateSlo[%s]", name());
  }
}
