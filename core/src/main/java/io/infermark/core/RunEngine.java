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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one benchmark: issues requests as the load profile says and guarantees that every scheduled
 * request ends as exactly one record and that the run ends by its deadline.
 *
 * <p>An {@linkplain Target#isAsync() asynchronous} target (an event-loop transport) is started
 * from the issuing thread itself and no thread waits for its response; a blocking one runs each
 * in-flight request on a thread of its own (virtual on Java 21+). Open-loop prompts are built ahead
 * of their intended times by a {@link LookAhead} thread, so building never shows as schedule lag.
 *
 * <p>Three ways to issue: an open loop walks a precomputed schedule (only its shard's indices when
 * sharded); a controlled open loop spaces requests evenly at a rate its controller resets every
 * interval; a closed loop runs one stream per unit of concurrency, each asking its
 * {@link StreamSource} for the next request and waiting its think time in between. Rate limits are
 * paced on the issuing thread before a request is registered, so their wait is schedule lag.
 */
final class RunEngine {

  private static final Logger LOG = LoggerFactory.getLogger(RunEngine.class);
  /**
   * Below this distance to a send time the scheduler spins instead of parking. Parking alone wakes
   * 50-100 us late on Linux (the default timer slack is 50 us), well inside the 1 ms a schedule is
   * held to, while spinning costs CPU on every request (200 us twice a request cost 1.2 cores at
   * 1,000 req/s); so the spin is short.
   */
  private static final long SPIN_NANOS = 20_000;
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
  /** The target does not verify TLS: every record is marked so. */
  private final boolean insecureTls;
  private final Optional<StartBarrier> barrier;
  private final boolean virtualThreads;
  private final boolean async;
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
    this.insecureTls = target.insecureTls();
    this.barrier = barrier;
    this.virtualThreads = virtualThreads && RequestThreads.virtual();
    this.async = target.isAsync();
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
    ScheduledExecutorService sender = async && load.isClosedLoop() ? RequestThreads.newSender() : null;
    Instant startedAt = barrier.map(StartBarrier::await).orElseGet(Instant::now);
    clientMonitor = newClientMonitor(); // hiccups, CPU, GC, I/O backlog: can the run be trusted?
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
      if (load.isClosedLoop() && sender != null && pacer == null && permits == null) {
        runClosedLoopAsync(sender, issueDeadline, hardDeadline);
      } else if (load.isClosedLoop()) {
        runClosedLoop(executor, issueDeadline, hardDeadline);
      } else if (control != null) {
        runControlled(executor, issueDeadline, hardDeadline);
      } else {
        runOpenLoop(executor, schedule, hardDeadline);
      }
      awaitInFlight(hardDeadline);
    } finally {
      executor.shutdown();
      if (sender != null) {
        sender.shutdownNow();
      }
      stopClientMonitor();
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
        trajectory, clientMonitor().health(scheduleStats, load, healthThresholds), insecureTls);
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
          runStream(stream, workload.stream(stream), next, total, issueDeadline, hardDeadline);
        } finally {
          streams.countDown();
        }
      });
    }
    awaitLatch(streams, hardDeadline);
  }

  /** One closed-loop stream: next request, send, wait for it to end, think, repeat. */
  private void runStream(int stream, StreamSource source, AtomicLong next, long total, long issueDeadline,
      long hardDeadline) {
    while (true) {
      if (!awaitUser(stream, issueDeadline)) {
        return;
      }
      long index = next.getAndIncrement();
      long now = clock.nanoTime();
      if (index >= total || now >= issueDeadline) {
        return;
      }
      RequestSpec spec;
      try {
        spec = requireSpec(source.next(index, now - origin, params), index);
      } catch (Throwable t) {
        if (!recordWorkloadFailure(index, now, t)) {
          return;
        }
        continue;
      }
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

  /**
   * Under a user ramp, waits until the stream's user is active; false if it never is again before
   * the issue deadline. Without a ramp every stream is always active.
   */
  private boolean awaitUser(int stream, long issueDeadline) {
    long at = userActiveAt(stream);
    return at != Long.MAX_VALUE && at < issueDeadline && waitUntil(at, issueDeadline);
  }

  /** When the stream's user is next active on the run clock: now without a ramp, MAX_VALUE if never. */
  private long userActiveAt(int stream) {
    long now = clock.nanoTime();
    if (load.userRamp().isEmpty()) {
      return now;
    }
    long at = load.userRamp().get().nextActiveNanos(stream, now - origin);
    return at == Long.MAX_VALUE ? at : origin + at;
  }

  /**
   * A closed loop on an asynchronous target: no thread per stream. Each stream's next request is
   * built and started on the sender thread; when it ends (on the target's I/O thread) the stream's
   * continuation goes back to the sender, after its think time.
   */
  private void runClosedLoopAsync(ScheduledExecutorService sender, long issueDeadline, long hardDeadline) {
    long total = totalRequests();
    AtomicLong next = new AtomicLong();
    CountDownLatch streams = new CountDownLatch(load.concurrency());
    for (int s = 0; s < load.concurrency(); s++) {
      AsyncStream stream = new AsyncStream(s, sender, next, total, issueDeadline, streams);
      sender.execute(stream::step);
    }
    awaitLatch(streams, hardDeadline);
  }

  /** One closed-loop stream on an asynchronous target; its steps run on the sender thread, one at a time. */
  private final class AsyncStream {
    private final int stream;
    private final ScheduledExecutorService sender;
    private final AtomicLong next;
    private final long total;
    private final long issueDeadline;
    private final CountDownLatch streams;
    private StreamSource source;
    private boolean finished;

    AsyncStream(int stream, ScheduledExecutorService sender, AtomicLong next, long total, long issueDeadline,
        CountDownLatch streams) {
      this.stream = stream;
      this.sender = sender;
      this.next = next;
      this.total = total;
      this.issueDeadline = issueDeadline;
      this.streams = streams;
    }

    void step() {
      try {
        if (source == null) {
          source = workload.stream(stream);
        }
        long activeAt = userActiveAt(stream);
        if (activeAt == Long.MAX_VALUE || activeAt >= issueDeadline) {
          finish(); // this stream's user is not active again before the run stops issuing
          return;
        }
        long wait = activeAt - clock.nanoTime();
        if (wait > 0) {
          sender.schedule(this::step, wait, TimeUnit.NANOSECONDS);
          return;
        }
        long index = next.getAndIncrement();
        long now = clock.nanoTime();
        if (index >= total || now >= issueDeadline) {
          finish();
          return;
        }
        RequestSpec spec;
        try {
          spec = requireSpec(source.next(index, now - origin, params), index);
        } catch (Throwable t) {
          spec = null;
          if (!recordWorkloadFailure(index, now, t)) {
            finish();
            return;
          }
          sender.execute(this::step);
          return;
        }
        Issued request = issue(index, now);
        if (request == null) {
          finish();
          return;
        }
        StreamSource s = source;
        start(index, request, spec, record -> continueAfter(index, record, s));
      } catch (Throwable t) {
        LOG.error("closed-loop stream {} stopped: {}", stream, t.toString());
        finish();
      }
    }

    private void continueAfter(long index, RequestRecord record, StreamSource s) {
      try {
        sender.execute(() -> {
          try {
            s.completed(record);
          } catch (RuntimeException e) {
            LOG.warn("stream source of stream {} threw on completion: {}", stream, e.toString());
          }
          long think = thinkNanos(index);
          if (think > 0) {
            sender.schedule(this::step, think, TimeUnit.NANOSECONDS);
          } else {
            step();
          }
        });
      } catch (java.util.concurrent.RejectedExecutionException e) {
        finish(); // the run is over
      }
    }

    private void finish() {
      if (!finished) {
        finished = true;
        streams.countDown();
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
    // A blocking target's thread is started ahead of the send time (starting or waking a thread
    // takes tens of microseconds to milliseconds on a busy machine) unless rate limits or an
    // in-flight cap must decide at the send time itself. An asynchronous target needs no thread.
    boolean early = !async && pacer == null && permits == null;
    LookAhead ahead = new LookAhead(workload, params, schedule, i, stride);
    try {
      for (; i < schedule.length; i += stride) {
        long intended = origin + schedule[i];
        LookAhead.Built built = ahead.take(i, hardDeadline, clock);
        if (!waitUntil(early ? intended - DISPATCH_LEAD_NANOS : intended, hardDeadline)
            || !acquirePermit(hardDeadline)) {
          break;
        }
        long index = i;
        if (built.failure() != null) {
          releasePermit();
          if (!recordWorkloadFailure(index, intended, built.failure())) {
            break;
          }
          continue;
        }
        RequestSpec spec = built.spec();
        if (!pace(spec, hardDeadline)) {
          break;
        }
        Issued request = issue(index, intended);
        if (request == null) {
          break;
        }
        if (async) {
          start(index, request, spec, r -> {});
        } else {
          executor.execute(() -> {
            if (early && !waitUntil(intended, hardDeadline)) {
              abandonUnsent(index, request);
              return;
            }
            send(index, request, spec);
          });
        }
      }
    } finally {
      ahead.close();
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
      RequestSpec spec;
      try {
        spec = requireSpec(workload.request(i, due - origin, params), i);
      } catch (Throwable t) {
        releasePermit();
        if (!recordWorkloadFailure(i, due, t)) {
          return;
        }
        last = due;
        continue;
      }
      if (!pace(spec, hardDeadline)) {
        return;
      }
      Issued request = issue(i, due);
      if (request == null) {
        return;
      }
      if (async) {
        start(i, request, spec, r -> {});
      } else {
        executor.execute(() -> send(i, request, spec));
      }
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
   * Sends one issued request on the current thread (a blocking target) and makes sure it ends as
   * one record; returns that record, or empty when the engine recorded the request itself because
   * the run ended first.
   */
  private Optional<RequestRecord> send(long index, Issued issuedRequest, RequestSpec spec) {
    Begun begun = begin(index, issuedRequest, spec, r -> {});
    if (begun == null) {
      return Optional.empty(); // the run ended before this thread got to the request; the engine recorded it
    }
    TokenTimeline timeline = begun.timeline;
    try {
      target.execute(begun.request, timeline, begun.cancellation);
    } catch (Throwable e) {
      timeline.onFailure(Failure.of(ErrorCategory.CLIENT, "target threw " + e), clock.nanoTime());
    } finally {
      if (!timeline.isDone()) {
        timeline.onFailure(Failure.of(ErrorCategory.CLIENT, "target returned without reporting an outcome"),
            clock.nanoTime());
      }
    }
    return timeline.record();
  }

  /**
   * Starts one issued request on an asynchronous target from the current thread; {@code then} gets
   * its record once it has ended and been recorded (on whichever thread ended it).
   */
  private void start(long index, Issued issuedRequest, RequestSpec spec, Consumer<RequestRecord> then) {
    Begun begun = begin(index, issuedRequest, spec, then);
    if (begun == null) {
      return;
    }
    try {
      target.start(begun.request, begun.timeline, begun.cancellation);
    } catch (Throwable e) {
      begun.timeline.onFailure(Failure.of(ErrorCategory.CLIENT, "target threw " + e), clock.nanoTime());
    }
  }

  /** A request handed to its target: what was sent, its timeline and its cancellation. */
  private record Begun(InferenceRequest request, TokenTimeline timeline, Cancellation cancellation) {}

  /** Builds the request and its timeline and marks it begun; null if the engine already recorded it. */
  private Begun begin(long index, Issued issuedRequest, RequestSpec spec, Consumer<RequestRecord> then) {
    InferenceRequest request;
    try {
      request = new InferenceRequest(requestId(index), spec.prompt(), spec.params());
      if (!listeners.isEmpty()) {
        request = listeners.beforeSend(request);
      }
    } catch (Throwable t) {
      if (issuedRequest.abandon()) {
        releasePermit();
        recordFailedBeforeSend(index, issuedRequest.intended, spec, "a listener's beforeSend threw " + t);
      }
      return null;
    }
    long intendedOffset = issuedRequest.intended - origin;
    if (!measuredBegun.get() && !load.isWarmup(index, intendedOffset)) {
      measuredRequestBegins();
    }
    Cancellation cancellation = new Cancellation();
    TokenTimeline timeline = TokenTimeline.builder(clock).index(index).requestId(request.id())
        .tags(spec.prompt().tags()).warmup(load.isWarmup(index, intendedOffset))
        .cooldown(load.isCooldown(index, intendedOffset)).originNanos(origin).intendedNanos(issuedRequest.intended)
        .sendNanos(clock.nanoTime()).captureText(captureText).onDone(r -> {
          done(index, r);
          then.accept(r);
        }).build();
    if (!issuedRequest.begin(timeline, cancellation)) {
      return null;
    }
    if (stopping) {
      cancellation.cancel();
    }
    return new Begun(request, timeline, cancellation);
  }

  /** The workload's request, or an exception naming the index when it returned null. */
  private static RequestSpec requireSpec(RequestSpec spec, long index) {
    if (spec == null) {
      throw new NullPointerException("the workload returned null for request " + index);
    }
    return spec;
  }

  /**
   * Records a request whose workload failed to produce it as a {@link ErrorCategory#CLIENT} failure,
   * so the run goes on with every record accounted for; false once the run is stopping.
   */
  private boolean recordWorkloadFailure(long index, long intended, Throwable cause) {
    LOG.warn("run {}: the workload failed to build request {}: {}", runId, index, cause.toString());
    Issued issuedRequest = issue(index, intended);
    if (issuedRequest == null) {
      return false;
    }
    if (issuedRequest.abandon()) {
      recordFailedBeforeSend(index, intended, null, "the workload failed to build this request: " + cause);
    }
    return true;
  }

  private void recordFailedBeforeSend(long index, long intended, RequestSpec spec, String message) {
    long at = intended - origin;
    RequestRecord r = RequestRecord.builder().index(index).requestId(requestId(index))
        .tags(spec == null ? Map.of() : spec.prompt().tags()).warmup(load.isWarmup(index, at))
        .cooldown(load.isCooldown(index, at)).intendedNanos(at).sendNanos(Math.max(at, clock.nanoTime() - origin))
        .failure(Optional.of(Failure.of(ErrorCategory.CLIENT, message))).build();
    synchronized (this) {
      issued.remove(index);
      if (!closed) {
        accept(r);
      }
      notifyAll();
    }
  }

  private void releasePermit() {
    if (permits != null) {
      permits.release();
    }
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
        .tags(tagsOf(index, at)).warmup(load.isWarmup(index, at))
        .cooldown(load.isCooldown(index, at)).intendedNanos(at).sendNanos(at)
        .failure(Optional.of(Failure.of(ErrorCategory.NOT_SENT, "the run ended before this request was sent")))
        .build();
  }

  /** The tags the workload gives a request that was never sent; none if the workload fails. */
  private Map<String, String> tagsOf(long index, long at) {
    try {
      RequestSpec spec = workload.request(index, at, params);
      return spec == null ? Map.of() : spec.prompt().tags();
    } catch (RuntimeException e) {
      return Map.of();
    }
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
  private void accept(RequestRecord original) {
    RequestRecord record = insecureTls && !original.insecureTls()
        ? original.toBuilder().insecureTls(true).build() : original;
    if (retainRecords) {
      records.add(record);
    } else {
      streamingSchedule.add(record);
    }
    if (load.isClosedLoop() && load.duration().isEmpty()) {
      recorded.set((int) record.index()); // bounded by the count limit
    }
    lastEndNanos = Math.max(lastEndNanos, record.sendNanos() + record.endOffsetNanos());
    clientMonitor().observe(record); // the scale its error bound is weighed against
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
  /** Judges the client; replaced once when the first measured request begins after a warmup. */
  private ClientHealthMonitor clientMonitor;
  private final java.util.concurrent.atomic.AtomicBoolean measuredBegun = new java.util.concurrent.atomic.AtomicBoolean();

  private ClientHealthMonitor newClientMonitor() {
    return ClientHealthMonitor.builder().probes(target.healthProbes()).monitoring(monitoring)
        .serverUrl(target instanceof io.infermark.core.target.HttpTarget h ? h.url() : "").start();
  }

  private boolean monitorStopped;

  private synchronized ClientHealthMonitor clientMonitor() {
    return clientMonitor;
  }

  /** Stops the monitor for good: no later request swaps in a fresh one. */
  private void stopClientMonitor() {
    ClientHealthMonitor m;
    synchronized (this) {
      monitorStopped = true;
      m = clientMonitor;
    }
    m.stop();
  }

  /**
   * The client's health is judged over the measured part of the run, as its statistics are: the
   * warmup is there to absorb class loading, JIT compilation and connection set-up, whose stalls
   * (a cold I/O thread can stall 150 ms) would otherwise mark a sound run as client-bound. So the
   * first measured request to begin after a warmup starts a fresh monitor.
   */
  private void measuredRequestBegins() {
    if ((load.warmupRequests() > 0 || load.warmupTime().isPresent()) && measuredBegun.compareAndSet(false, true)) {
      ClientHealthMonitor fresh = newClientMonitor();
      ClientHealthMonitor old;
      synchronized (this) {
        if (monitorStopped) {
          old = fresh; // the run is over: keep the figures it has
        } else {
          old = clientMonitor;
          clientMonitor = fresh;
        }
      }
      old.stop();
    }
  }

  RunEngine healthThresholds(HealthThresholds thresholds) {
    this.healthThresholds = thresholds;
    return this;
  }

  private io.infermark.core.health.ClientMonitoring monitoring = io.infermark.core.health.ClientMonitoring.FULL;

  /** Which monitors {@link #newClientMonitor()} starts; before {@link #run()}. */
  RunEngine clientMonitoring(io.infermark.core.health.ClientMonitoring level) {
    this.monitoring = level;
    return this;
  }
}
