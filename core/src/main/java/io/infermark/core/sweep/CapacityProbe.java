package io.infermark.core.sweep;

import io.infermark.core.RunResult;
import java.util.Locale;
import java.util.Objects;

/**
 * One run of a capacity search.
 *
 * @param rate the offered rate, requests/s
 * @param value the SLO metric's value at that rate (NaN when the search uses a plain predicate)
 * @param passed whether the SLO held
 * @param result the run
 */
public record CapacityProbe(double rate, double value, boolean passed, RunResult result) {

  /** Validates. */
  public CapacityProbe {
    Objects.requireNonNull(result, "result");
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CapacityProbe[%.4g/s: %s%s]", rate, passed ? "pass" : "FAIL",
        Double.isNaN(value) ? "" : String.format(Locale.ROOT, ", value %.4g", value));
  }
}
