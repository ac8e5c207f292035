package io.infermark.testkit.simulator;

import java.util.List;
import java.util.Optional;

/**
 * Decides which fault, if any, a generation request suffers, from the seed and the request's
 * arrival sequence number only: first the scheduled rules (the first rule listing the number
 * wins), then one uniform draw per request split among the probabilistic rules in order
 * ({@code [0, p1)} → the first rule's fault, {@code [p1, p1 + p2)} → the second's, ...).
 */
final class FaultPolicy {

  // Salts the seed so fault draws are independent of the output text drawn from the same seed.
  private static final long FAULT_SALT = 0x5DEECE66DL;
  private static final long JITTER_SALT = 0x7A3C1F2B9D4E6F81L;

  private final long seed;
  private final List<FaultRule> rules;
  private final boolean none;

  FaultPolicy(long seed, List<FaultRule> rules) {
    this.seed = seed ^ FAULT_SALT;
    this.rules = List.copyOf(rules);
    this.none = rules.isEmpty();
  }

  static FaultPolicy of(SimulatorConfig config) {
    return new FaultPolicy(config.seed(), config.faultRules());
  }

  Optional<Fault> decide(long sequence) {
    if (none) {
      return Optional.empty();
    }
    for (FaultRule r : rules) {
      if (r.onRequests().contains(sequence)) {
        return Optional.of(r.fault());
      }
    }
    double u = Mix.unit(seed, sequence);
    double edge = 0;
    for (FaultRule r : rules) {
      if (r.probability() > 0) {
        edge += r.probability();
        if (u < edge) {
          return Optional.of(r.fault());
        }
      }
    }
    return Optional.empty();
  }

  /** A slowdown's jitter for request {@code sequence}: uniform in {@code [0, maxNanos]}, from the seed. */
  long jitterNanos(long sequence, long maxNanos) {
    return Math.round(Mix.unit(seed ^ JITTER_SALT, sequence) * maxNanos);
  }
}
