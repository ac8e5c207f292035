package io.infermark.core.health;

/**
 * Something a {@link ClientHealthMonitor} measures during a run besides its own figures: how late an
 * event loop runs its tasks ({@link LoopLag}), how far a transport's reads fall behind. A probe is a
 * factory: the monitor {@link #start() starts} one measurement per run and stops it at the run's end,
 * so one probe can serve many runs.
 *
 * <p>A reading is lateness in nanoseconds: 0 means on time. The health verdict judges its p99 with the
 * same limits as the hiccup meter's ({@link HealthThresholds#degradedHiccupP99()}), and the
 * measurement floor includes it.
 */
public interface Probe {

  /** A short name for reports and reasons, e.g. {@code "netty event loop 0"}. */
  String name();

  /** Starts measuring; the returned measurement is stopped once. */
  Measurement start();

  /** One running measurement of a {@link Probe}. */
  interface Measurement {

    /** Stops measuring and returns what was measured. */
    LatencyStats stop();
  }
}
