package io.infermark.core.run;

import io.infermark.core.Benchmark;
import io.infermark.core.Interruption;
import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.RunStart;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.control.ControlStep;
import io.infermark.core.health.ClientHealthMonitor;
import io.infermark.core.health.ClientMonitoring;
import io.infermark.core.health.HealthThresholds;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.session.SessionWorkload;
import io.infermark.core.shard.StartBarrier;
import io.infermark.core.time.Clock;
import io.infermark.core.workload.Workload;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one benchmark: sets the run up, lets its {@link LoadMode} issue requests over the shared
 * {@link IssuingCore}, drains and cancels as its {@link RunLifecycle} says, and builds the result.
 * It guarantees that every scheduled request ends as exactly one record and that the run ends by its
 * deadline, or by its stop's drain deadline when it is stopped.
 *
 * <p>An {@linkplain Target#isAsync() asynchronous} target (an event-loop transport) is started
 * from the issuing thread itself and no thread waits for its response; a blocking one runs each
 * in-flight request on a thread of its own (virtual on Java 21+). Open-loop prompts are built ahead
 * of their intended times by a {@link LookAhead} thread, so building never shows as schedule lag.
 */
public final class RunEngine {

  private static final Logger LOG = LoggerFactory.getLogger(RunEngine.class);

  private final RunSettings settings;
  private final RunLifecycle lifecycle;
  private final String runId = Long.toString(System.nanoTime() & 0xFFFFFFFFFL, 36);

  /** An engine for one run of these settings, driven by {@code lifecycle}. */
  public RunEngine(RunSettings settings, RunLifecycle lifecycle) {
    this.settings = settings;
    this.lifecycle = lifecycle;
  }

  /** Runs to the end on the calling thread and returns the result. */
  public RunResult run() {
    LoadProfile load = settings.load();
    Target target = settings.target();
    Clock clock = settings.clock();
    boolean virtualThreads = settings.virtualThreads() && RequestThreads.virtual();
    load.validate();
    target.prepare(load.expectedMaxInFlight());
    boolean asyncClosedLoop = target.isAsync() && load.isClosedLoop();
    boolean sessions = settings.workload() instanceof SessionWorkload;
    ExecutorService executor = RequestThreads.newExecutor(virtualThreads);
    ScheduledExecutorService sender = asyncClosedLoop || sessions ? RequestThreads.newSender() : null;
    Instant startedAt = settings.barrier().map(StartBarrier::await).orElseGet(Instant::now);
    // hiccups, CPU, GC, I/O backlog: can the run be trusted?
    String serverUrl = target.serverUrl().orElse("");
    RunHealth health = new RunHealth(() -> ClientHealthMonitor.builder().probes(target.healthProbes())
        .monitoring(settings.monitoring()).serverUrl(serverUrl).start(), load);
    long origin = clock.nanoTime();
    long issueDeadline = load.duration().map(d -> origin + d.toNanos()).orElse(Long.MAX_VALUE);
    long hardDeadline = Math.min(load.timeout().map(d -> origin + d.toNanos()).orElse(Long.MAX_VALUE),
        issueDeadline == Long.MAX_VALUE ? Long.MAX_VALUE : issueDeadline + load.drainTimeout().toNanos());
    lifecycle.start(origin, issueDeadline, hardDeadline, hardDeadline);
    IssuingCore core = new IssuingCore(settings, lifecycle, origin, health, runId);
    long[] schedule = load.isClosedLoop() || core.control() != null || sessions ? null
        : load.arrivalProcess().orElseThrow().schedule((int) Math.min(load.totalRequests(), Integer.MAX_VALUE),
            issueDeadline == Long.MAX_VALUE ? Long.MAX_VALUE : issueDeadline - origin, load.seed());
    OptionalLong planned = schedule != null ? OptionalLong.of(shardSize(load, schedule.length))
        : load.requests().isPresent() ? OptionalLong.of(load.totalRequests()) : OptionalLong.empty();
    settings.listeners().runStarted(new RunStart(startedAt, origin, clock, target.toString(), load,
        settings.params(), planned));
    LOG.debug("run {} starting: {} against {}", runId, load, target);
    List<RequestRecord> all;
    try {
      mode(core, executor, sender, schedule).issue();
      lifecycle.limitsReached();
      core.drain();
    } finally {
      all = core.close();
      lifecycle.finished();
      executor.shutdown();
      if (sender != null) {
        sender.shutdownNow();
      }
      health.stop();
    }
    return result(core, health, all, startedAt, origin, virtualThreads);
  }

  /** The load mode the profile and target call for. */
  private LoadMode mode(IssuingCore core, ExecutorService executor, ScheduledExecutorService sender,
      long[] schedule) {
    if (settings.workload() instanceof SessionWorkload sessions) {
      return new SessionLoop(core, executor, sender, sessions);
    }
    if (settings.load().isClosedLoop()) {
      return sender != null && !core.limitsAtSend() ? new AsyncClosedLoop(core, sender)
          : new ClosedLoop(core, executor);
    }
    return schedule == null ? new ControlledRateLoop(core, executor) : new OpenLoop(core, executor, schedule);
  }

  private RunResult result(IssuingCore core, RunHealth health, List<RequestRecord> all, Instant startedAt,
      long origin, boolean virtualThreads) {
    LoadProfile load = settings.load();
    boolean retain = settings.retainRecords();
    all.sort(Comparator.comparingLong(RequestRecord::index));
    OptionalDouble requested = load.arrivalProcess().map(ArrivalProcess::nominalRate).orElse(OptionalDouble.empty());
    if (requested.isPresent() && load.shardCount() > 1) {
      requested = OptionalDouble.of(requested.getAsDouble() / load.shardCount());
    }
    List<ControlStep> trajectory = core.control() == null ? List.of() : core.control().trajectory();
    ScheduleStats scheduleStats = retain ? ScheduleStats.of(all, requested) : core.streamingSchedule().result(requested);
    Optional<Interruption> interruption = lifecycle.stop().map(stop -> {
      long[] counts = core.outcomeCounts();
      return new Interruption(stop.reason(), stop.requestedAt(), Math.max(0, stop.requestedAtNanos() - origin),
          counts[0], counts[1], counts[2], 0);
    });
    LOG.debug("run {} finished: {} records{}", runId, retain ? all.size() : scheduleStats.sent(),
        interruption.map(i -> ", " + i.summary()).orElse(""));
    // a stopped run lasted until its stop at least, though no request may have ended then
    long duration = Math.max(core.lastEndNanos(), interruption.map(Interruption::atNanos).orElse(0L));
    RunResult result = new RunResult(retain ? all : List.of(), retain, startedAt, origin, duration,
        settings.target().toString(), load, settings.params(), settings.workload().distinctPrompts(),
        RunEnvironment.current(virtualThreads), scheduleStats, trajectory,
        health.verdict(scheduleStats, load, settings.healthThresholds()), settings.target().insecureTls(),
        interruption);
    settings.listeners().runFinished(result);
    return result;
  }

  /** How many of a schedule's {@code n} indices fall to this machine's shard. */
  private static long shardSize(LoadProfile load, int n) {
    int count = load.shardCount();
    int index = load.shardIndex();
    return n <= index ? 0 : (n - 1 - index) / count + 1;
  }
}
