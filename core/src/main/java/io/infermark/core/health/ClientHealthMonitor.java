package io.infermark.core.health;

import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.time.Clock;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Watches the client's machine while a run goes: started at the run's beginning, stopped at its end.
 * Between the two it keeps a {@link HiccupMeter} running, listens for GC pauses, runs each registered
 * {@link Probe}, and reads the process's CPU time and its threads' run-queue waits ({@link RunQueueWait})
 * at both ends; at the end it reads the system load average. {@link #health} adds the run's schedule
 * figures and judges them all.
 *
 * <pre>{@code
 * ClientHealthMonitor monitor = ClientHealthMonitor.builder().probe(LoopLag.of("loop", eventLoop)).start();
 * ... run ...
 * monitor.stop();
 * ClientHealth health = monitor.health(schedule, load, HealthThresholds.defaults());
 * }</pre>
 *
 * <p>Costs one daemon thread whose wakes follow the load ({@link HiccupMeter#startAdaptive()}: every 1 ms while the
 * process keeps half a core busy, up to every 10 ms while it is nearly idle; a few tens of microseconds of CPU
 * each) plus one per probe; {@link ClientMonitoring#REDUCED} wakes every 10 ms with no probes, and
 * {@link ClientMonitoring#OFF} runs nothing. Thread-safe; {@link #stop()} is idempotent.
 */
public final class ClientHealthMonitor implements AutoCloseable {

  private final Clock clock = Clock.system();
  private final long startNanos;
  private final OptionalLong startCpu;
  private final RunQueueWait.Snapshot startRunQueue;
  private final ClientMonitoring monitoring;
  /** Null when the monitors are off. */
  private final HiccupMeter hiccups;
  /** Null when the monitors are off. */
  private final GcPauseListener gc;
  private final List<Probe> probes;
  private final List<Probe.Measurement> running;
  private final SharedMachine.Snapshot startMachine;
  private final java.util.Optional<String> localServer;
  private final LatencyScale scale = new LatencyScale();
  private ClientMeasurements result;

  private ClientHealthMonitor(List<Probe> probes, Duration hiccupResolution, String serverUrl,
      ClientMonitoring monitoring) {
    this.monitoring = monitoring;
    boolean on = monitoring != ClientMonitoring.OFF;
    this.probes = monitoring == ClientMonitoring.FULL ? List.copyOf(probes) : List.of();
    this.gc = on ? GcPauseListener.start() : null;
    this.hiccups = !on ? null : monitoring == ClientMonitoring.REDUCED ? HiccupMeter.start(REDUCED_RESOLUTION)
        : hiccupResolution != null ? HiccupMeter.start(hiccupResolution) : HiccupMeter.startAdaptive();
    List<Probe.Measurement> started = new ArrayList<>();
    for (Probe p : this.probes) {
      started.add(p.start());
    }
    this.running = List.copyOf(started);
    // CPU is read inside the wall span at both ends, so cores used never exceed what the span allowed.
    this.startNanos = clock.nanoTime();
    this.startCpu = on ? processCpuNanos() : OptionalLong.empty();
    this.startRunQueue = on ? RunQueueWait.Snapshot.read(RunQueueWait.Snapshot.SELF) : null;
    this.startMachine = on ? SharedMachine.Snapshot.read() : SharedMachine.Snapshot.NONE;
    this.localServer = SharedMachine.localHost(serverUrl);
  }

  /** The hiccup meter's period with {@link ClientMonitoring#REDUCED}. */
  static final Duration REDUCED_RESOLUTION = Duration.ofMillis(10);

  /** Starts a monitor with no probes and an adaptive hiccup meter (every 1 ms to every 10 ms, by the load). */
  public static ClientHealthMonitor start() {
    return builder().start();
  }

  /** A builder for a monitor with probes or another hiccup resolution. */
  public static Builder builder() {
    return new Builder();
  }

  /** Configures and starts a {@link ClientHealthMonitor}. */
  public static final class Builder {
    private final List<Probe> probes = new ArrayList<>();
    private Duration hiccupResolution;
    private String serverUrl = "";
    private ClientMonitoring monitoring = ClientMonitoring.FULL;

    private Builder() {}

    /**
     * The URL of the server the run measures, so the verdict can say when a busy machine is that server's doing
     * (its host is this machine's loopback address); none by default.
     */
    public Builder serverUrl(String url) {
      this.serverUrl = Objects.requireNonNull(url, "url");
      return this;
    }

    /** Adds a probe to run during the monitored span. */
    public Builder probe(Probe probe) {
      probes.add(Objects.requireNonNull(probe, "probe"));
      return this;
    }

    /** Adds probes to run during the monitored span. */
    public Builder probes(List<? extends Probe> more) {
      more.forEach(this::probe);
      return this;
    }

    /**
     * Which monitors run (default {@link ClientMonitoring#FULL}); {@link ClientMonitoring#OFF} starts nothing and
     * the health says the monitors were off.
     */
    public Builder monitoring(ClientMonitoring level) {
      this.monitoring = Objects.requireNonNull(level, "level");
      return this;
    }

    /**
     * A fixed period for the hiccup meter's sleep, instead of the default that follows the load (every 1 ms to
     * every 10 ms, see {@link HiccupMeter#startAdaptive()}); with {@link ClientMonitoring#FULL} only.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder hiccupResolution(Duration resolution) {
      Objects.requireNonNull(resolution, "resolution");
      if (resolution.isNegative() || resolution.isZero()) {
        throw new IllegalArgumentException("the hiccup resolution must be > 0, was " + resolution);
      }
      this.hiccupResolution = resolution;
      return this;
    }

    /** Starts monitoring now. */
    public ClientHealthMonitor start() {
      return new ClientHealthMonitor(probes, hiccupResolution, serverUrl, monitoring);
    }
  }

  /**
   * Stops monitoring (the first call; later ones return the same figures) and returns what was
   * measured, without send figures.
   */
  public synchronized ClientMeasurements stop() {
    if (result != null) {
      return result;
    }
    if (monitoring == ClientMonitoring.OFF) {
      result = new ClientMeasurements(Math.max(0, clock.nanoTime() - startNanos), LatencyStats.EMPTY,
          CpuUsage.UNMEASURED, RunQueueWait.UNMEASURED, GcPauses.NONE, List.of(), SendFigures.NONE,
          SharedMachine.UNMEASURED, ClientMonitoring.OFF);
      return result;
    }
    OptionalLong endCpu = processCpuNanos();
    RunQueueWait runQueue =
        RunQueueWait.between(startRunQueue, RunQueueWait.Snapshot.read(RunQueueWait.Snapshot.SELF));
    long wall = Math.max(0, clock.nanoTime() - startNanos);
    LatencyStats hiccup = hiccups.stop();
    List<ProbeReading> readings = new ArrayList<>();
    for (int i = 0; i < probes.size(); i++) {
      readings.add(new ProbeReading(probes.get(i).name(), running.get(i).stop()));
    }
    GcPauses pauses = gc.stop();
    OptionalLong cpu = startCpu.isPresent() && endCpu.isPresent()
        ? OptionalLong.of(Math.max(0, endCpu.getAsLong() - startCpu.getAsLong())) : OptionalLong.empty();
    SharedMachine machine = new SharedMachine(startMachine.busyShareUntil(SharedMachine.Snapshot.read()), localServer);
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    double load = os.getSystemLoadAverage();
    CpuUsage usage = new CpuUsage(cpu, wall, Runtime.getRuntime().availableProcessors(),
        load >= 0 ? OptionalDouble.of(load) : OptionalDouble.empty());
    result = new ClientMeasurements(wall, hiccup, usage, runQueue, pauses, readings, SendFigures.NONE, machine,
        monitoring);
    return result;
  }

  /** The hiccup meter's lateness so far, while the monitor runs; for tests that wait for its first sample. */
  LatencyStats hiccupsSoFar() {
    return hiccups == null ? LatencyStats.EMPTY : hiccups.snapshot();
  }

  /** Which monitors run. */
  public ClientMonitoring monitoring() {
    return monitoring;
  }

  /** Same as {@link #stop()}. */
  @Override
  public void close() {
    stop();
  }

  /**
   * Sets one of the run's records beside the figures: the successful measured ones give the scale (TTFT, TPOT, ITL,
   * E2E) the client's error bound is weighed against. Call it for every record as the run ends them (before or
   * after {@link #stop()}); cheap (a few histogram updates per record and per chunk), thread-safe.
   */
  public void observe(io.infermark.core.capture.RequestRecord record) {
    Objects.requireNonNull(record, "record");
    if (monitoring != ClientMonitoring.OFF) {
      scale.add(record);
    }
  }

  /**
   * The verdict on a run: stops the monitor if it still runs, adds the run's send figures
   * ({@link SendFigures#of}), judges everything against {@code thresholds} and weighs the error bound against the
   * records {@linkplain #observe observed} ({@link ClientHealth}).
   */
  public ClientHealth health(ScheduleStats schedule, LoadProfile load, HealthThresholds thresholds) {
    if (monitoring == ClientMonitoring.OFF) {
      stop();
      return ClientHealth.monitorsOff();
    }
    ClientMeasurements m = stop().withSends(SendFigures.of(schedule, load));
    ClientHealth health = ClientHealth.evaluate(m, thresholds, scale.bounds(ClientHealth.floor(m)));
    return scale.allFailed() ? health.everyRequestFailed(scale.measured(), scale.slowestFailureNanos()) : health;
  }

  private static OptionalLong processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      long t = os.getProcessCpuTime();
      return t >= 0 ? OptionalLong.of(t) : OptionalLong.empty();
    }
    return OptionalLong.empty();
  }

  @Override
  public String toString() {
    return "ClientHealthMonitor[" + probes.size() + " probes, " + (result == null ? "running" : "stopped") + "]";
  }
}
