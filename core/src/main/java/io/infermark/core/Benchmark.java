package io.infermark.core;

import io.infermark.core.health.ClientMonitoring;
import io.infermark.core.health.HealthThresholds;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.run.Preflight;
import io.infermark.core.run.RunEngine;
import io.infermark.core.run.RunLifecycle;
import io.infermark.core.run.RunListeners;
import io.infermark.core.run.RunSettings;
import io.infermark.core.shard.StartBarrier;
import io.infermark.core.time.Clock;
import io.infermark.core.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The fluent entry point: what to send, how, where, and then {@link #run()}.
 *
 * <pre>{@code
 * RunResult result = Benchmark.target(OpenAiTarget.chat("http://localhost:8000/v1", "my-model").build())
 *     .prompts(Prompt.user("Write a haiku about latency."))
 *     .params(GenerationParams.builder().maxTokens(128).ignoreEos(true).build())
 *     .load(LoadProfile.concurrency(16).requests(200))
 *     .run();
 * }</pre>
 *
 * <p>Immutable: every method returns a new benchmark, so one configured benchmark can be run
 * several times or varied. With {@link #prompts} request {@code i} uses prompt {@code i mod prompts};
 * a {@link #workload(Workload)} decides each request's prompt and parameters instead (trace replay,
 * datasets, the Zipf shaper, sessions). The target is not closed by the run; its owner closes it.
 */
public final class Benchmark {

  private Target target;
  private Workload workload;
  private GenerationParams params = GenerationParams.defaults();
  private LoadProfile load = LoadProfile.concurrency(1).requests(1);
  private boolean captureText;
  private Clock clock = Clock.system();
  private List<RunListener> listeners = List.of();
  private boolean retainRecords = true;
  private StartBarrier barrier;
  private boolean virtualThreads = true;
  private HealthThresholds healthThresholds = HealthThresholds.defaults();
  private boolean preflight = true;
  private ClientMonitoring monitoring = ClientMonitoring.FULL;

  private Benchmark(Target target) {
    this.target = target;
  }

  /** A copy to change before returning it (never changed afterwards). */
  private Benchmark copy() {
    Benchmark b = new Benchmark(target);
    b.workload = workload;
    b.params = params;
    b.load = load;
    b.captureText = captureText;
    b.clock = clock;
    b.listeners = listeners;
    b.retainRecords = retainRecords;
    b.barrier = barrier;
    b.virtualThreads = virtualThreads;
    b.healthThresholds = healthThresholds;
    b.preflight = preflight;
    b.monitoring = monitoring;
    return b;
  }

  /** Starts a benchmark of the given target: one request, one stream, default parameters until configured. */
  public static Benchmark target(Target target) {
    Objects.requireNonNull(target, "target");
    return new Benchmark(target);
  }

  /** The same benchmark against another target. */
  public Benchmark withTarget(Target target) {
    Benchmark b = copy();
    b.target = Objects.requireNonNull(target, "target");
    return b;
  }

  /** The prompts to cycle through; at least one. */
  public Benchmark prompts(List<Prompt> prompts) {
    if (prompts.isEmpty()) {
      throw new IllegalArgumentException("the prompt set is empty: give at least one prompt");
    }
    return workload(Workload.cycle(prompts));
  }

  /** The prompts to cycle through; at least one. */
  public Benchmark prompts(Prompt... prompts) {
    return prompts(List.of(prompts));
  }

  /** What each request sends, decided per request (replaces {@link #prompts}). */
  public Benchmark workload(Workload workload) {
    Benchmark b = copy();
    b.workload = Objects.requireNonNull(workload, "workload");
    return b;
  }

  /** Generation parameters shared by every request (a workload may adjust them per request). */
  public Benchmark params(GenerationParams params) {
    Benchmark b = copy();
    b.params = Objects.requireNonNull(params, "params");
    return b;
  }

  /** The load profile (default: one request on one stream). */
  public Benchmark load(LoadProfile load) {
    Objects.requireNonNull(load, "load");
    load.validate();
    Benchmark b = copy();
    b.load = load;
    return b;
  }

  /** The configured load profile. */
  public LoadProfile load() {
    return load;
  }

  /** Keep each response's generated text on its record (off by default: it costs memory). */
  public Benchmark captureText(boolean capture) {
    Benchmark b = copy();
    b.captureText = capture;
    return b;
  }

  /** The run's monotonic clock; must be the clock the target stamps events with. */
  public Benchmark clock(Clock clock) {
    Benchmark b = copy();
    b.clock = Objects.requireNonNull(clock, "clock");
    return b;
  }

  /**
   * Adds a listener that observes the run as it happens (progress, telemetry, streaming summaries);
   * listeners are called in the order they were added.
   */
  public Benchmark listener(RunListener listener) {
    Objects.requireNonNull(listener, "listener");
    List<RunListener> all = new ArrayList<>(listeners);
    all.add(listener);
    Benchmark b = copy();
    b.listeners = List.copyOf(all);
    return b;
  }

  /**
   * Whether the result keeps every record (default true). Off, records go only to the listeners and
   * memory stays flat however long the run: use it with a streaming summary for very long runs.
   * The result's schedule statistics are then computed on the fly (lag percentiles from an
   * HdrHistogram, within 0.1 %).
   */
  public Benchmark retainRecords(boolean retain) {
    Benchmark b = copy();
    b.retainRecords = retain;
    return b;
  }

  /**
   * Waits for a wall-clock time before the run's origin, so shards on several machines start their
   * schedules together; the result's {@code startedAt} is then the barrier's release time.
   */
  public Benchmark startBarrier(StartBarrier barrier) {
    Benchmark b = copy();
    b.barrier = Objects.requireNonNull(barrier, "barrier");
    return b;
  }

  /**
   * Whether requests run on virtual threads when the runtime has them (Java 21+; default true).
   * Virtual threads cost less CPU per streamed token, but on a machine whose cores are busy a
   * woken read waits in the virtual-thread scheduler's queue, which adds milliseconds to measured
   * times; {@code false} gives every in-flight request its own platform thread, as on Java 17.
   * {@code RunResult.environment()} says which was used.
   */
  public Benchmark virtualThreads(boolean virtual) {
    Benchmark b = copy();
    b.virtualThreads = virtual;
    return b;
  }

  /**
   * The limits the run's client health ({@link RunResult#clientHealth()}) is judged by; default
   * {@link HealthThresholds#defaults()}.
   */
  public Benchmark healthThresholds(HealthThresholds thresholds) {
    Benchmark b = copy();
    b.healthThresholds = Objects.requireNonNull(thresholds, "thresholds");
    return b;
  }

  /**
   * Which of the client's monitors the run keeps (default {@link ClientMonitoring#FULL}, whose hiccup meter already
   * wakes less often at light load): {@link ClientMonitoring#REDUCED} (a 10 ms hiccup meter, no probes) or
   * {@link ClientMonitoring#OFF} (none; the run's health is unmeasured and says so), for a client that shares a
   * machine with a CPU-bound server and must take as little of it as it can.
   */
  public Benchmark clientMonitoring(ClientMonitoring level) {
    Benchmark b = copy();
    b.monitoring = Objects.requireNonNull(level, "level");
    return b;
  }

  /**
   * Whether {@link #run()} first sends one test request to an HTTP target
   * ({@link io.infermark.core.protocol.HttpTarget}), with the run's parameters and one output token
   * (default true). A 401, 403 or 404 answer, or a host that cannot be reached, then fails the run
   * at once with a {@link PreflightFailedException} carrying the server's own (redacted) message,
   * instead of a run of identical failed records; any other outcome is logged and the run goes
   * ahead. The test request is not part of the run's records, but the server sees it.
   */
  public Benchmark preflight(boolean check) {
    Benchmark b = copy();
    b.preflight = check;
    return b;
  }

  /**
   * Runs the benchmark on the calling thread and returns every request's record. Blocks until the
   * load profile's limits are reached and in-flight requests have finished or been cancelled at the
   * drain timeout. To stop a run from another thread (a signal, a host's shutdown), {@link #start()} it.
   *
   * @throws IllegalStateException if no prompts or workload were given
   * @throws PreflightFailedException if the {@linkplain #preflight(boolean) pre-flight request}
   *     found the target misconfigured
   */
  public RunResult run() {
    RunLifecycle lifecycle = new RunLifecycle(clock);
    return engine(lifecycle).run();
  }

  /**
   * Starts the benchmark on a thread of its own and returns at once: {@link BenchmarkRun#await()}
   * gives the result, {@link BenchmarkRun#stop(String, java.time.Duration)} stops it gracefully from
   * any thread (its result is then marked {@linkplain RunResult#interruption() interrupted}). The
   * pre-flight request, if any, is sent before this returns.
   *
   * @throws IllegalStateException if no prompts or workload were given
   * @throws PreflightFailedException if the pre-flight request found the target misconfigured
   */
  public BenchmarkRun start() {
    RunLifecycle lifecycle = new RunLifecycle(clock);
    return BenchmarkRun.start(engine(lifecycle), lifecycle);
  }

  private RunEngine engine(RunLifecycle lifecycle) {
    if (workload == null) {
      throw new IllegalStateException("no prompts: call prompts(...) or workload(...) before run()");
    }
    if (preflight && target.supportsPreflight()) {
      Preflight.check(target, params);
    }
    return new RunEngine(new RunSettings(target, workload, params, load, captureText || workload.needsText(),
        clock, new RunListeners(listeners), retainRecords, Optional.ofNullable(barrier), virtualThreads,
        healthThresholds, monitoring), lifecycle);
  }

  @Override
  public String toString() {
    return "Benchmark[" + target + ", " + (workload == null ? "no prompts" : workload) + ", " + params + ", " + load
        + (captureText ? ", capturing text" : "") + (listeners.isEmpty() ? "" : ", " + listeners.size() + " listeners")
        + (retainRecords ? "" : ", records not retained") + (preflight ? "" : ", no pre-flight")
        + (monitoring == ClientMonitoring.FULL ? "" : ", client monitors " + monitoring) + (barrier == null ? "" : ", " + barrier) + "]";
  }
}
