package io.infermark.core;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenTimeline;
import io.infermark.core.control.ControlStep;
import io.infermark.core.control.RateController;
import io.infermark.core.health.ClientHealthMonitor;
import io.infermark.core.health.HealthThresholds;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.load.Randoms;
import io.infermark.core.load.RateLimits;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.shard.StartBarrier;
import io.infermark.core.target.Cancellation;
import io.infermark.core.target.Target;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.StreamSource;
import io.infermark.core.workload.Workload;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.SplittableRandom;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one benchmark: issues requests as the load profile says, on one thread per in-flight
 * request, and guarantees that every scheduled request ends as exactly one record and that the
 * run ends by its deadline.
 *
 * <p>Three ways to issue: an open loop walks a precomputed schedule (only its shard's indices when
 * sharded); a controlled open loop spaces requests evenly at a rate its controller resets every
 * interval; a closed loop runs one stream per unit of concurrency, each asking its
 * {@link StreamSource} for the next request and waiting its think time in between. Rate limits are
 * paced on the issuing thread before a request is registered, so their wait is schedule lag.
 */
final class RunEngine {

  private static final Logger LOG = LoggerFactory.getLogger(RunEngine.class);
  /** Below this distance to a send time the scheduler spins instead of parking, for sub-ms accuracy. */
  private static final long SPIN_NANOS = 200_000;
  /**
   * How long before its intended time an open-loop request is handed to its thread, which then
   * parks and spins until the time itself: starting or waking a thread takes tens of microseconds
   * to milliseconds on a busy machine, and that delay must not land between the intended time and
   * the send.
   */
  private static final long DISPATCH_LEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
  /**
   * Longest a wait blocks before it reads the run's clock again: deadlines are clock readings, and a
   * wait sized once in real time would miss a clock that is not the system's (tests, replays).
   */
  private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  /** How long cancelled requests get to report their cancellation before the engine records it itself. */
  private static final long CANCEL_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final Target target;
  private final Workload workload;
  private final GenerationParams params;
  private final LoadProfile load;
  private final boolean captureText;
  private final Clock clock;
  private final RunListeners listeners;
  private final boolean retainRecords;
  private final Optional<StartBarrier> barrier;
  private final boolean virtualThreads;
  private final String runId = Long.toString(System.nanoTime() & 0xFFFFFFFFFL, 36);

  /** Every issued request that has not yet produced its record, by index. */
  private final Map<Long, Issued> issued = new ConcurrentHashMap<>();
  private final List<RequestRecord> records = new ArrayList<>();
  /** Indices recorded so far, for a closed loop limited by count (to find those never issued). */
  private final BitSet recorded = new BitSet();
  private final StreamingScheduleStats streamingSchedule = new StreamingScheduleStats();
  private long lastEndNanos;
  private volatile boolean stopping;
  private boolean closed;
  private Semaphore permits;
  private RateLimits.Pacer pacer;
  private RateController.Loop control;
  private long origin;

  RunEngine(Target target, Workload workload, GenerationParams params, LoadProfile load, boolean captureText,
      Clock clock, RunListeners listeners, boolean retainRecords, Optional<StartBarrier> barrier,
      boolean virtualThreads) {
    this.target = target;
    this.workload = workload;
    this.params = params;
    this.load = load;
    this.captureText = captureText;
    this.clock = clock;
    this.listeners = listeners;
    this.retainRecords = retainRecords;
    this.barrier = barrier;
    this.virtualThreads = virtualThreads && RequestThreads.virtual();
  }

  /**
   * One issued request. Its thread {@link #begin begins} it, or the engine {@link #abandon abandons}
   * it at the deadline if the thread never got to it; the state change is atomic, so exactly one of
   * them produces the record.
   */
  private static final class Issued {
    private final long intended;
    private final AtomicInteger state = new AtomicInteger();
    private volatile TokenTimeline timeline;
    private volatile Cancellation cancellation;

    Issued(long intended) {
      this.intended = intended;
    }

    boolean begin(TokenTimeline t, Cancellation c) {
      timeline = t;
      cancellation = c;
      return state.compareAndSet(0, 1);
    }

    boolean abandon() {
      return state.compareAndSet(0, 2);
    }
  }

  RunResult run() {
    load.validate();
    target.prepare(load.expectedMaxInFlight());
    ExecutorService executor = RequestThreads.newExecutor(virtualThreads);
    Instant startedAt = barrier.map(StartBarrier::await).orElseGet(Instant::now);
    ClientHealthMonitor clientMonitor = ClientHealthMonitor.start(); // hiccups, CPU, GC: can the run be trusted?
    origin = clock.nanoTime();
    long issueDeadline = load.duration().map(d -> origin + d.toNanos()).orElse(Long.MAX_VALUE);
    long hardDeadline = Math.min(
        load.timeout().map(d -> origin + d.toNanos()).orElse(Long.MAX_VALUE),
        issueDeadline == Long.MAX_VALUE ? Long.MAX_VALUE : issueDeadline + load.drainTimeout().toNanos());
    int cap = Math.min(load.maxInFlight().orElse(Integer.MAX_VALUE),
        load.limits().concurrentStreams().orElse(Integer.MAX_VALUE));
    permits = cap == Integer.MAX_VALUE ? null : new Semaphore(cap);
    pacer = load.limits().paces() ? load.limits().pacer() : null;
    control = load.controller().map(RateController::start).orElse(null);
    long[] schedule = load.isClosedLoop() || control != null ? null : load.arrivalProcess().orElseThrow().schedule(
        (int) Math.min(totalRequests(), Integer.MAX_VALUE),
        issueDeadline == Long.MAX_VALUE ? Long.MAX_VALUE : issueDeadline - origin, load.seed());
    OptionalLong planned = schedule != null ? OptionalLong.of(shardSize(schedule.length))
        : load.requests().isPresent() ? OptionalLong.of(totalRequests()) : OptionalLong.empty();
    listeners.runStarted(new RunStart(startedAt, origin, clock, target.toString(), load, params, planned));
    LOG.debug("run {} starting: {} against {}", runId, load, target);
    try {
      if (load.isClosedLoop()) {
        runClosedLoop(executor, issueDeadline, hardDeadline);
      } else if (control != null) {
        runControlled(executor, issueDeadline, hardDeadline);
      } else {
        runOpenLoop(executor, schedule, hardDeadline);
      }
      awaitInFlight(hardDeadline);
    } finally {
      executor.shutdown();
      clientMonitor.stop();
    }
    List<RequestRecord> all;
    synchronized (this) {
      stopping = true; // no stream issues anything from here on
      closed = true;
      if (load.isClosedLoop() && load.duration().isEmpty()) {
        addNeverIssued(); // with a duration, stopping short of the count is the duration's doing
      }
      all = new ArrayList<>(records);
    }
    all.sort(Comparator.comparingLong(RequestRecord::index));
    OptionalDouble requested =
        load.arrivalProcess().map(ArrivalProcess::nominalRate).orElse(OptionalDouble.empty());
    if (requested.isPresent() && load.shardCount() > 1) {
      requested = OptionalDouble.of(requested.getAsDouble() / load.shardCount());
    }
    LOG.debug("run {} finished: {} records", runId, retainRecords ? all.size() : streamingSchedule);
    List<ControlStep> trajectory = control == null ? List.of() : control.trajectory();
    ScheduleStats scheduleStats = retainRecords ? ScheduleStats.of(all, requested) : streamingSchedule.result(requested);
    RunResult result = new RunResult(all, retainRecords, startedAt, origin, lastEndNanos, target.toString(), load,
        params, workload.distinctPrompts(), RunEnvironment.current(virtualThreads), scheduleStats,
        trajectory, clientMonitor.health(scheduleStats, load, healthThresholds));
    listeners.runFinished(result);
    return result;
  }

  /** How many of a schedule's {@code n} indices fall to this machine's shard. */
  private long shardSize(int n) {
    int count = load.shardCount();
    int index = load.shardIndex();
    return n <= index ? 0 : (n - 1 - index) / count + 1;
  }

  /**
   * A closed loop limited only by count promised {@code requests + warmup} requests; those its
   * streams never got to before the run's timeout are recorded as not sent, so none goes missing.
   */
  private void addNeverIssued() {
    long now = clock.nanoTime();
    int total = (int) totalRequests();
    for (int i = recorded.nextClearBit(0); i < total; i = recorded.nextClearBit(i + 1)) {
      accept(notSent(i, now));
    }
  }

  private long totalRequests() {
    return load.totalRequests();
  }

  private void runClosedLoop(ExecutorService executor, long issueDeadline, long hardDeadline) {
    long total = totalRequests();
    AtomicLong next = new AtomicLong();
    CountDownLatch streams = new CountDownLatch(load.concurrency());
    for (int s = 0; s < load.concurrency(); s++) {
      int stream = s;
      executor.execute(() -> {
        try {
          runStream(workload.stream(stream), next, total, issueDeadline, hardDeadline);
        } finally {
          streams.countDown();
        }
      });
    }
    awaitLatch(streams, hardDeadline);
  }

  /** One closed-loop stream: next request, send, wait for it to end, think, repeat. */
  private void runStream(StreamSource source, AtomicLong next, long total, long issueDeadline, long hardDeadline) {
    while (true) {
      long index = next.getAndIncrement();
      long now = clock.nanoTime();
      if (index >= total || now >= issueDeadline) {
        return;
      }
      RequestSpec spec = source.next(index, now - origin, params);
      if (!acquirePermit(hardDeadline) || !pace(spec, issueDeadline)) {
        return;
      }
      Issued request = issue(index, now);
      if (request == null) {
        return;
      }
      send(index, request, spec).ifPresent(source::completed);
      long think = thinkNanos(index);
      if (think > 0 && !waitUntil(clock.nanoTime() + think, issueDeadline)) {
        return;
      }
    }
  }

  private long thinkNanos(long index) {
    if (load.thinkTime().isEmpty()) {
      return 0;
    }
    long mean = load.thinkTime().get().toNanos();
    if (!load.exponentialThinkTime()) {
      return mean;
    }
    return Math.round(Randoms.exponential(new SplittableRandom(Randoms.mix(load.seed(), index))) * mean);
  }

  /**
   * Waits for the rate limits to allow a request, before it is registered; false (releasing its
   * permit) if the deadline comes first.
   */
  private boolean pace(RequestSpec spec, long deadline) {
    if (pacer == null) {
      return true;
    }
    long at = origin + pacer.reserve(clock.nanoTime() - origin, RateLimits.tokenCost(spec.prompt(), spec.params()));
    if (waitUntil(at, deadline)) {
      return true;
    }
    if (permits != null) {
      permits.release();
    }
    return false;
  }

  private void runOpenLoop(ExecutorService executor, long[] schedule, long hardDeadline) {
    int stride = load.shardCount();
    int i = load.shardIndex();
    // With rate limits or an in-flight cap the issuing thread must decide at the send time itself.
    boolean early = pacer == null && permits == null;
    for (; i < schedule.length; i += stride) {
      long intended = origin + schedule[i];
      if (!waitUntil(early ? intended - DISPATCH_LEAD_NANOS : intended, hardDeadline)
          || !acquirePermit(hardDeadline)) {
        break;
      }
      long index = i;
      RequestSpec spec = null;
      if (pacer != null) {
        spec = workload.request(index, schedule[i], params);
        if (!pace(spec, hardDeadline)) {
          break;
        }
      }
      Issued request = issue(index, intended);
      if (request == null) {
        break;
      }
      RequestSpec paced = spec;
      executor.execute(() -> {
        if (early && !waitUntil(intended, hardDeadline)) {
          abandonUnsent(index, request);
          return;
        }
        send(index, request, paced != null ? paced : workload.request(index, request.intended - origin, params));
      });
    }
    for (; i < schedule.length; i += stride) {
      add(notSent(i, origin + schedule[i]));
    }
  }

  /**
   * An open loop at a rate its controller decides: requests evenly spaced at the current rate, the
   * rate reset every interval from the controller's reading of the run so far.
   */
  private void runControlled(ExecutorService executor, long issueDeadline, long hardDeadline) {
    RateController controller = load.controller().orElseThrow();
    long interval = controller.interval().toNanos();
    long stopAt = Math.min(issueDeadline, hardDeadline);
    double rate = controller.initialRate();
    long nextUpdate = origin + interval;
    long last = Long.MIN_VALUE;
    long total = totalRequests();
    for (long index = 0; index < total; index++) {
      long due = due(last, rate);
      while (nextUpdate <= due && nextUpdate < stopAt) {
        if (!waitUntil(nextUpdate, hardDeadline)) {
          return;
        }
        rate = control.update(clock.nanoTime() - origin);
        nextUpdate += interval;
        due = due(last, rate);
      }
      if (due >= stopAt || !waitUntil(due, hardDeadline) || !acquirePermit(hardDeadline)) {
        return;
      }
      long i = index;
      RequestSpec spec = workload.request(i, due - origin, params);
      if (!pace(spec, hardDeadline)) {
        return;
      }
      Issued request = issue(i, due);
      if (request == null) {
        return;
      }
      executor.execute(() -> send(i, request, spec));
      last = due;
    }
  }

  /** The next send time after one at {@code last} at {@code rate}: the origin first, never for rate 0. */
  private long due(long last, double rate) {
    if (last == Long.MIN_VALUE) {
      return origin;
    }
    return rate > 0 ? last + Math.round(1e9 / rate) : Long.MAX_VALUE;
  }

  /** Parks, then spins for the last stretch; false if the hard deadline comes first. */
  private boolean waitUntil(long at, long hardDeadline) {
    while (true) {
      long now = clock.nanoTime();
      if (now >= hardDeadline) {
        return false;
      }
      if (now >= at) {
        return true;
      }
      long remaining = Math.min(at, hardDeadline) - now;
      if (remaining > SPIN_NANOS) {
        LockSupport.parkNanos(Math.min(remaining - SPIN_NANOS, SLICE_NANOS));
      } else {
        Thread.onSpinWait();
      }
    }
  }

  private boolean acquirePermit(long hardDeadline) {
    if (permits == null) {
      return true;
    }
    try {
      while (!permits.tryAcquire(SLICE_NANOS, TimeUnit.NANOSECONDS)) {
        if (clock.nanoTime() >= hardDeadline) {
          return false;
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Registers a request about to be sent; null once the run is stopping. */
  private Issued issue(long index, long intended) {
    synchronized (this) {
      if (stopping) {
        if (permits != null) {
          permits.release();
        }
        return null;
      }
      Issued request = new Issued(intended);
      issued.put(index, request);
      return request;
    }
  }

  /**
   * Sends one issued request on the current thread and makes sure it ends as one record; returns
   * that record, or empty when the engine recorded the request itself because the run ended first.
   */
  private Optional<RequestRecord> send(long index, Issued issuedRequest, RequestSpec spec) {
    InferenceRequest request = new InferenceRequest(requestId(index), spec.prompt(), spec.params());
    if (!listeners.isEmpty()) {
      request = listeners.beforeSend(request);
    }
    long intendedOffset = issuedRequest.intended - origin;
    Cancellation cancellation = new Cancellation();
    TokenTimeline timeline = TokenTimeline.builder(clock).index(index).requestId(request.id())
        .tags(spec.prompt().tags()).warmup(load.isWarmup(index, intendedOffset))
        .cooldown(load.isCooldown(index, intendedOffset)).originNanos(origin).intendedNanos(issuedRequest.intended)
        .sendNanos(clock.nanoTime()).captureText(captureText).onDone(r -> done(index, r)).build();
    if (!issuedRequest.begin(timeline, cancellation)) {
      return Optional.empty(); // the run ended before this thread got to the request; the engine recorded it
    }
    if (stopping) {
      cancellation.cancel();
    }
    try {
      target.execute(request, timeline, cancellation);
    } catch (RuntimeException e) {
      timeline.onFailure(Failure.of(ErrorCategory.CLIENT, "target threw " + e), clock.nanoTime());
    } finally {
      if (!timeline.isDone()) {
        timeline.onFailure(Failure.of(ErrorCategory.CLIENT, "target returned without reporting an outcome"),
            clock.nanoTime());
      }
    }
    return timeline.record();
  }

  /** A request dispatched early whose intended time came after the hard deadline: recorded as not sent. */
  private void abandonUnsent(long index, Issued request) {
    synchronized (this) {
      if (!closed && request.abandon()) {
        issued.remove(index);
        accept(notSent(index, request.intended));
        notifyAll();
      }
    }
  }

  private String requestId(long index) {
    return "im-" + runId + "-" + index;
  }

  private RequestRecord notSent(long index, long intended) {
    long at = intended - origin;
    return RequestRecord.builder().index(index).requestId(requestId(index))
        .tags(workload.request(index, at, params).prompt().tags()).warmup(load.isWarmup(index, at))
        .cooldown(load.isCooldown(index, at)).intendedNanos(at).sendNanos(at)
        .failure(Optional.of(Failure.of(ErrorCategory.NOT_SENT, "the run ended before this request was sent")))
        .build();
  }

  private void done(long index, RequestRecord record) {
    if (permits != null) {
      permits.release();
    }
    synchronized (this) {
      if (closed) {
        return; // already recorded by the engine at the deadline
      }
      issued.remove(index);
      accept(record);
      notifyAll();
    }
  }

  private synchronized void add(RequestRecord record) {
    accept(record);
  }

  /** Takes a final record: keeps it (or only its statistics) and tells the listeners. Holds the lock. */
  private void accept(RequestRecord record) {
    if (retainRecords) {
      records.add(record);
    } else {
      streamingSchedule.add(record);
    }
    if (load.isClosedLoop() && load.duration().isEmpty()) {
      recorded.set((int) record.index()); // bounded by the count limit
    }
    lastEndNanos = Math.max(lastEndNanos, record.sendNanos() + record.endOffsetNanos());
    if (control != null) {
      control.onRecord(record);
    }
    listeners.record(record);
  }

  /**
   * Waits for every issued request to end. At the hard deadline it cancels them, gives them a short
   * grace to report it, and then records whatever is left itself, so the run ends on time with
   * exactly one record per issued request.
   */
  private void awaitInFlight(long hardDeadline) {
    if (awaitIssued(hardDeadline)) {
      return;
    }
    List<Issued> left;
    synchronized (this) {
      stopping = true;
      left = List.copyOf(issued.values());
    }
    LOG.info("run {} reached its deadline with {} requests in flight; cancelling them", runId, left.size());
    for (Issued r : left) {
      Cancellation c = r.cancellation;
      if (c != null) {
        c.cancel();
      }
    }
    if (awaitIssued(clock.nanoTime() + CANCEL_GRACE_NANOS)) {
      return;
    }
    long now = clock.nanoTime();
    for (Map.Entry<Long, Issued> e : List.copyOf(issued.entrySet())) {
      Issued r = e.getValue();
      if (r.abandon()) {
        issued.remove(e.getKey());
        add(notSent(e.getKey(), r.intended));
      } else if (r.state.get() == 1) { // begun; 2 means its own thread already recorded it unsent
        r.timeline.onFailure(Failure.of(ErrorCategory.CANCELLED,
            "cancelled at the run deadline; the target did not stop in time"), now);
      }
    }
    synchronized (this) {
      closed = true;
    }
  }

  private boolean awaitIssued(long deadline) {
    synchronized (this) {
      while (!issued.isEmpty()) {
        long remaining = deadline - clock.nanoTime();
        if (remaining <= 0) {
          return false;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(this, Math.min(remaining, SLICE_NANOS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
      return true;
    }
  }

  private void awaitLatch(CountDownLatch latch, long deadline) {
    try {
      while (!latch.await(Math.min(Math.max(deadline - clock.nanoTime(), 0), SLICE_NANOS),
          TimeUnit.NANOSECONDS)) {
        if (clock.nanoTime() >= deadline) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The limits the run's client health is judged by (the defaults unless the benchmark set others). */
  private HealthThresholds healthThresholds = HealthThresholds.defaults();

  RunEngine healthThresholds(HealthThresholds thresholds) {
    this.healthThresholds = thresholds;
    return this;
  }
}
