package io.infermark.core.health;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The raw figures a {@link ClientHealth} verdict rests on: what the {@link ClientHealthMonitor}
 * measured on the client's machine during the run, and what the run's schedule said about its sends.
 *
 * @param wallNanos how long the monitor ran (the run, from just before its origin to its last request's end)
 * @param hiccup the {@link HiccupMeter}'s lateness samples
 * @param cpu the process's CPU use and the machine's load
 * @param runQueue how long the client's threads waited for a core, beside how long they ran
 *     ({@link RunQueueWait#UNMEASURED} where the platform does not say)
 * @param gc stop-the-world GC pauses
 * @param probes each {@link Probe}'s reading, in registration order
 * @param sends the run's send lag and achieved rate ({@link SendFigures#NONE} until the run adds them)
 * @param machine how busy the whole machine was and whether the server runs on it
 *     ({@link SharedMachine#UNMEASURED} when not read)
 * @param monitoring which monitors ran ({@link ClientMonitoring#REDUCED}: a 10 ms hiccup meter and no probes)
 */
public record ClientMeasurements(long wallNanos, LatencyStats hiccup, CpuUsage cpu, RunQueueWait runQueue,
    GcPauses gc, List<ProbeReading> probes, SendFigures sends, SharedMachine machine, ClientMonitoring monitoring) {

  /** Validates and copies. */
  public ClientMeasurements {
    if (wallNanos < 0) {
      throw new IllegalArgumentException("wallNanos must be >= 0, was " + wallNanos);
    }
    Objects.requireNonNull(hiccup, "hiccup");
    Objects.requireNonNull(cpu, "cpu");
    Objects.requireNonNull(runQueue, "runQueue");
    Objects.requireNonNull(gc, "gc");
    probes = List.copyOf(probes);
    Objects.requireNonNull(sends, "sends");
    Objects.requireNonNull(machine, "machine");
    Objects.requireNonNull(monitoring, "monitoring");
  }

  /** Measurements of every monitor ({@link ClientMonitoring#FULL}). */
  public ClientMeasurements(long wallNanos, LatencyStats hiccup, CpuUsage cpu, RunQueueWait runQueue, GcPauses gc,
      List<ProbeReading> probes, SendFigures sends, SharedMachine machine) {
    this(wallNanos, hiccup, cpu, runQueue, gc, probes, sends, machine, ClientMonitoring.FULL);
  }

  /** Measurements without a reading of the machine ({@link SharedMachine#UNMEASURED}). */
  public ClientMeasurements(long wallNanos, LatencyStats hiccup, CpuUsage cpu, RunQueueWait runQueue, GcPauses gc,
      List<ProbeReading> probes, SendFigures sends) {
    this(wallNanos, hiccup, cpu, runQueue, gc, probes, sends, SharedMachine.UNMEASURED, ClientMonitoring.FULL);
  }

  /** Measurements without a run-queue reading ({@link RunQueueWait#UNMEASURED}). */
  public ClientMeasurements(long wallNanos, LatencyStats hiccup, CpuUsage cpu, GcPauses gc, List<ProbeReading> probes,
      SendFigures sends) {
    this(wallNanos, hiccup, cpu, RunQueueWait.UNMEASURED, gc, probes, sends, SharedMachine.UNMEASURED,
        ClientMonitoring.FULL);
  }

  /** The same measurements with the run's send figures. */
  public ClientMeasurements withSends(SendFigures figures) {
    return new ClientMeasurements(wallNanos, hiccup, cpu, runQueue, gc, probes, figures, machine, monitoring);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ClientMeasurements[%.3f s, hiccup %s, %s, %s, %s, %d probes, %s, %s%s]",
        wallNanos / 1e9, hiccup, cpu, runQueue, gc, probes.size(), sends, machine,
        monitoring == ClientMonitoring.FULL ? "" : ", monitors " + monitoring);
  }
}
