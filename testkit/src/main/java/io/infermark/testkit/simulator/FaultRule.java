package io.infermark.testkit.simulator;

import java.util.List;
import java.util.Objects;

/**
 * When a {@link Fault} strikes: with a seeded probability per request, or on the requests with
 * the listed arrival sequence numbers (0 is the first generation request the simulator receives).
 *
 * @param fault the fault
 * @param probability the chance each request suffers it (0 for a scheduled rule)
 * @param onRequests the arrival sequence numbers it strikes (empty for a probabilistic rule)
 */
public record FaultRule(Fault fault, double probability, List<Long> onRequests) {

  /** Validates and copies. */
  public FaultRule {
    Objects.requireNonNull(fault, "fault");
    onRequests = List.copyOf(onRequests);
    if (!(probability >= 0 && probability <= 1)) {
      throw new IllegalArgumentException("fault probability must be between 0 and 1, was " + probability);
    }
    for (long r : onRequests) {
      if (r < 0) {
        throw new IllegalArgumentException("request sequence numbers start at 0, was " + r);
      }
    }
  }

  @Override
  public String toString() {
    return fault + (onRequests.isEmpty() ? " p=" + probability : " on " + onRequests);
  }
}
