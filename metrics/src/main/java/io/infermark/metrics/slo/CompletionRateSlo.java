package io.infermark.metrics.slo;

/**
 * A run-level objective: successful measured requests divided by measured requests must be at least
 * {@code minFraction}, as agent tool chains need nearly every step to complete.
 *
 * @param minFraction in [0, 1]: 0.992 for 99.2 %
 */
public record CompletionRateSlo(double minFraction) implements Slo {

  /** Validates. */
  public CompletionRateSlo {
    if (!(minFraction >= 0 && minFraction <= 1)) {
      throw new IllegalArgumentException("minFraction must be in [0, 1] (0.992 for 99.2 %), was " + minFraction);
    }
  }

  @Override
  public String name() {
    return "completion >= " + LatencySlo.trim(minFraction * 100) + " %";
  }

  @Override
  public boolean perRequest() {
    return false;
  }

  @Override
  public String toString() {
    return "CompletionRateSlo[" + name() + "]";
  }
}
