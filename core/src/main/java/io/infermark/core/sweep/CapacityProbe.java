package io.infermark.core.sweep;

import io.infermark.core.RunResult;
import io.infermark.core.health.ClientHealth;
import java.util.Locale;
import java.util.Objects;

/**
 * One run of a capacity search.
 *
 * @param rate the level probed: the offered rate in requests/s, or for a search over concurrency
 *     ({@link CapacityAxis#CONCURRENCY}) the number of closed-loop streams, a whole number
 * @param value the SLO metric's value at that rate (NaN when the search uses a plain predicate)
 * @param sloMet whether the SLO held on the run's figures
 * @param result the run
 */
public record CapacityProbe(double rate, double value, boolean sloMet, RunResult result) {

  /** Validates. */
  public CapacityProbe {
    Objects.requireNonNull(result, "result");
  }

  /**
   * Whether the probe counts as passing: the SLO held and the client was not CLIENT_BOUND. A client-bound
   * run's figures are the client's, so they cannot show the server met the SLO.
   */
  public boolean passed() {
    return sloMet && !result.clientHealth().isClientBound();
  }

  /** Whether the SLO held but the probe was refused because its client was CLIENT_BOUND. */
  public boolean refusedAsClientBound() {
    return sloMet && result.clientHealth().isClientBound();
  }

  /** The run's client health. */
  public ClientHealth clientHealth() {
    return result.clientHealth();
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CapacityProbe[%.4g/s: %s%s%s]", rate,
        passed() ? "pass" : refusedAsClientBound() ? "REFUSED" : "FAIL",
        Double.isNaN(value) ? "" : String.format(Locale.ROOT, ", value %.4g", value),
        clientHealth().isWarning() ? ", client " + clientHealth().verdict() : "");
  }
}
