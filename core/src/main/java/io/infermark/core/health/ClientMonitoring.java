package io.infermark.core.health;

/**
 * How much of the client's machine a run watches, for its {@link ClientHealth}. Watching costs the machine a
 * little, which matters when the client shares its cores with a CPU-bound server (a CPU inference engine on the
 * same machine) at light load: there, the default's cost already follows the load, and the others cost less still.
 * The run's health says which was used ({@link ClientMeasurements#monitoring()}), or that the monitors were off.
 */
public enum ClientMonitoring {
  /**
   * Every monitor (the default): a hiccup meter whose period follows the client's own CPU use (every 1 ms while
   * the client keeps half a core busy or more, up to every 10 ms while it is nearly idle, so its cost stays a few
   * percent of the client's), the transport's probes (each I/O thread's backlog), GC pauses, process CPU, the
   * client's run-queue waits and the machine's busy share.
   */
  FULL,
  /**
   * A hiccup meter every 10 ms and no probes; GC pauses, CPU, run-queue waits and the machine's busy share stay
   * (they cost two readings per run). A tenth of FULL's wakes at most; the floor rests on fewer samples and does
   * not see the I/O threads' backlog.
   */
  REDUCED,
  /**
   * No monitor at all: no thread, no listener. The run's health is
   * {@link HealthVerdict#UNMEASURED}, and its reason says the monitors were off ({@link ClientHealth#monitorsOff()}).
   */
  OFF
}
