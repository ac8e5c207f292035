package io.infermark.perturbation.validate;

import java.util.Locale;
import java.util.OptionalDouble;

/**
 * A count of valid responses out of a total.
 *
 * @param valid responses that passed
 * @param total responses counted (failed requests included)
 */
public record Rate(long valid, long total) {

  /** Validates. */
  public Rate {
    if (total < 0 || valid < 0 || valid > total) {
      throw new IllegalArgumentException("rate needs 0 <= valid <= total, was " + valid + "/" + total);
    }
  }

  /** valid / total; empty when nothing was counted. */
  public OptionalDouble rate() {
    return total == 0 ? OptionalDouble.empty() : OptionalDouble.of(valid / (double) total);
  }

  Rate plus(boolean ok) {
    return new Rate(valid + (ok ? 1 : 0), total + 1);
  }

  @Override
  public String toString() {
    return total == 0 ? "0/0" : String.format(Locale.ROOT, "%d/%d (%.1f%%)", valid, total, 100.0 * valid / total);
  }
}
