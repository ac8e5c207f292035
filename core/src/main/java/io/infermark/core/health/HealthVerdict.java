package io.infermark.core.health;

/** How far a run's client can be trusted; see {@link ClientHealth} and {@link HealthThresholds}. */
public enum HealthVerdict {
  /** Nothing measured says the client was in the way: its numbers are the server's. */
  OK,
  /**
   * The client was noisy or busy but kept up: the numbers stand, but differences near the
   * measurement floor are the client's, and tails may be inflated by about the floor.
   */
  DEGRADED,
  /**
   * The client could not keep up: its threads ran late, it ran out of CPU, or it did not send what the
   * load asked for. Latencies and throughput describe the client as much as the server; do not
   * compare or judge them.
   */
  CLIENT_BOUND,
  /**
   * Not measured: a result built by hand, merged from files, or read back from a report that did not
   * carry client health.
   */
  UNMEASURED;

  /** Whether the verdict warns: {@link #DEGRADED} or {@link #CLIENT_BOUND}. */
  public boolean isWarning() {
    return this == DEGRADED || this == CLIENT_BOUND;
  }

  /** The worse of two verdicts: CLIENT_BOUND over DEGRADED over OK over UNMEASURED. */
  public HealthVerdict worse(HealthVerdict other) {
    return rank(this) >= rank(other) ? this : other;
  }

  private static int rank(HealthVerdict v) {
    return switch (v) {
      case UNMEASURED -> 0;
      case OK -> 1;
      case DEGRADED -> 2;
      case CLIENT_BOUND -> 3;
    };
  }
}
