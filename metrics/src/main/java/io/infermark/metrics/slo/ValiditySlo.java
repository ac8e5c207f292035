package io.infermark.metrics.slo;

import io.infermark.core.capture.RequestRecord;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * A response-validity objective: the caller's predicate judges each successful measured request's
 * record (its text, finish reason, token counts); at least {@code minValidFraction} of them must
 * pass. Per request (for goodput), an invalid response is a miss. The predicate must be
 * side-effect free; it is called once per request per evaluation.
 *
 * @param label what the check is, e.g. {@code "valid JSON"}
 * @param valid the check
 * @param minValidFraction in [0, 1]
 */
public record ValiditySlo(String label, Predicate<RequestRecord> valid, double minValidFraction) implements Slo {

  /** Validates. */
  public ValiditySlo {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(valid, "valid");
    if (label.isBlank()) {
      throw new IllegalArgumentException("label must not be blank");
    }
    if (!(minValidFraction >= 0 && minValidFraction <= 1)) {
      throw new IllegalArgumentException("minValidFraction must be in [0, 1], was " + minValidFraction);
    }
  }

  @Override
  public String name() {
    return label + " >= " + LatencySlo.trim(minValidFraction * 100) + " %";
  }

  @Override
  public boolean perRequest() {
    return true;
  }

  @Override
  public String toString() {
    return "ValiditySlo[" + name() + "]";
  }
}
