package io.infermark.core.run;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.StreamingScheduleStats;
import io.infermark.core.capture.TokenTimeline;
import io.infermark.core.control.RateController;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.load.Randoms;
import io.infermark.core.load.RateLimits;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.session.SessionWorkload;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every load mode shares: registering a request as issued, handing it to the target, and
 * making sure it ends as exactly one record whatever the target, the network, the host's code or a
 * stop does. Load modes ({@link OpenLoop}, {@link ControlledRateLoop}, {@link ClosedLoop},
 * {@link AsyncClosedLoop}) decide only when to issue and what.
 *
 * <p>Bookkeeping (the requests in flight, the records) is guarded by this object's monitor; the
 * run's {@link RunLifecycle} decides whether issuing is still allowed, and {@link #drain()} runs
 * its drain and cancel steps.
 */
final class IssuingCore {

  private static final Logger LOG = LoggerFactory.getLogger(IssuingCore.class);
  /**
   * Below this distance to a send time the scheduler spins instead of parking. Parking alone wakes
   * 50-100 us late on Linux (the default timer slack is 50 us), well inside the 1 ms a schedule is
   * held to, while spinning costs CPU on every request (200 us twice a request cost 1.2 cores at
   * 1,000 req/s); so the spin is short.
   */
  private static final long SPIN_NANOS = 20_000;
  /**
   * Longest a wait blocks before it reads the run's clock again: deadlines are clock readings, and a
   * wait sized once in real time would miss a clock that is not the system's (tests, replays); it is
   * also how soon a wait notices a stop.
   */
  static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  /** How long requests the run cancelled get to report it before the core records them itself. */
  private static final long CANCEL_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

  final Target target;
  final Workload workload;
  final GenerationParams params;
  final LoadProfile load;
  final Clock clock;
  final RunLifecycle lifecycle;
  final long origin;
  final boolean async;
  private final boolean captureText;
  private final RunListeners listeners;
  private final boolean retainRecords;
  private final boolean insecureTls;
  private final String runId;
  private final RunHealth health;
  private final Semaphore permits;
  private final RateLimits.Pacer pacer;
  private final RateController.Loop control;

  /** Every issued request that has not yet produced its record, by index. */
  private final Map<Long, Issued> issued = new ConcurrentHashMap<>();
  private final List<RequestRecord> records = new ArrayList<>();
  /** Indices recorded so far, for a closed loop limited by count (to find those never issued). */
  private final BitSet recorded = new BitSet();
  private final StreamingScheduleStats streamingSchedule = new StreamingScheduleStats();
  private long lastEndNanos;
  private long completed;
  private long cancelled;
  private long notSent;
  /** Set once the core has recorded what was left: records arriving later are duplicates and dropped. */
  private boolean closed;

  IssuingCore(RunSettings s, RunLifecycle lifecycle, long origin, RunHealth health, String runId) {
    this.target = s.target();
    this.workload = s.workload();
    this.params = s.params();
    this.load = s.load();
    this.clock = s.clock();
    this.captureText = s.captureText();
    this.listeners = s.listeners();
    this.retainRecords = s.retainRecords();
    this.insecureTls = s.target().insecureTls();
    this.async = s.target().isAsync();
    this.lifecycle = lifecycle;
    this.origin = origin;
    this.health = health;
    this.runId = runId;
    int cap = Math.min(load.maxInFlight().orElse(Integer.MAX_VALUE),
        load.limits().concurrentStreams().orElse(Integer.MAX_VALUE));
    this.permits = cap == Integer.MAX_VALUE ? null : new Semaphore(cap);
    this.pacer = load.limits().paces() ? load.limits().pacer() : null;
    this.control = load.controller().map(RateController::start).orElse(null);
  }

  /**
   * One issued request. Its thread {@link #begin begins} it, or the core {@link #abandon abandons}
   * it if the thread never got to it; the state change is atomic, so exactly one of them produces
   * the record.
   */
  static final class Issued {
    private static final int WAITING = 0;
    private static final int BEGUN = 1;
    private static final int ABANDONED = 2;

    final long intended;
    private final AtomicInteger state = new AtomicInteger(WAITING);
    private volatile TokenTimeline timeline;
    private volatile Cancellation cancellation;

    Issued(long intended) {
      this.intended = intended;
    }

    boolean begin(TokenTimeline t, Cancellation c) {
      timeline = t;
      cancellation = c;
      return state.compareAndSet(WAITING, BEGUN);
    }

    boolean abandon() {
      return state.compareAndSet(WAITING, ABANDONED);
    }

    boolean begun() {
      return state.get() == BEGUN;
    }
  }

  /** The rate controller's loop of a controlled run, else null. */
  RateController.Loop control() {
    return control;
  }

  /** True when rate limits or an in-flight cap must decide at the send time itself. */
  boolean limitsAtSend() {
    return pacer != null || permits != null;
  }

  // ---------------------------------------------------------------------------------------------
  // Waiting

  /**
   * Parks, then spins for the last stretch, until {@code at}; false if {@code deadline} comes first
   * or the run was stopped.
   */
  boolean waitUntil(long at, long deadline) {
    while (true) {
      if (lifecycle.stopRequested()) {
        return false;
      }
      long now = clock.nanoTime();
      if (now >= deadline) {
        return false;
      }
      if (now >= at) {
        return true;
      }
      long remaining = Math.min(at, deadline) - now;
      if (remaining > SPIN_NANOS) {
        LockSupport.parkNanos(Math.min(remaining - SPIN_NANOS, SLICE_NANOS));
      } else {
        Thread.onSpinWait();
      }
    }
  }

  /** Waits for a permit of the in-flight cap; false if the deadline comes first or the run was stopped. */
  boolean acquirePermit(long deadline) {
    if (permits == null) {
      return true;
    }
    try {
      while (!permits.tryAcquire(SLICE_NANOS, TimeUnit.NANOSECONDS)) {
        if (clock.nanoTime() >= deadline || lifecycle.stopRequested()) {
          return false;
        }
      }
      if (lifecycle.stopRequested()) {
        permits.release();
        return false;
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  void releasePermit() {
    if (permits != null) {
      permits.release();
    }
  }

  /**
   * Waits for the rate limits to allow a request, before it is registered; false (releasing its
   * permit) if the deadline comes first.
   */
  boolean pace(RequestSpec spec, long deadline) {
    if (pacer == null) {
      return true;
    }
    long at = origin + pacer.reserve(clock.nanoTime() - origin, RateLimits.tokenCost(spec.prompt(), spec.params()));
    if (waitUntil(at, deadline)) {
      return true;
    }
    releasePermit();
    return false;
  }

  /**
   * Waits for a latch (the streams of a closed loop) until the deadline or a stop: after a stop the
   * streams' requests in flight are the drain's business, not the issuer's.
   */
  void await(CountDownLatch latch, long deadline) {
    try {
      while (!latch.await(Math.min(Math.max(deadline - clock.nanoTime(), 0), SLICE_NANOS), TimeUnit.NANOSECONDS)) {
        if (clock.nanoTime() >= deadline || lifecycle.stopRequested()) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A closed-loop stream's think time before its next request after request {@code index}. */
  long thinkNanos(long index) {
    if (load.thinkTime().isEmpty()) {
      return 0;
    }
    long mean = load.thinkTime().get().toNanos();
    if (!load.exponentialThinkTime()) {
      return mean;
    }
    return Math.round(Randoms.exponential(new SplittableRandom(Randoms.mix(load.seed(), index))) * mean);
  }

  // ---------------------------------------------------------------------------------------------
  // Issuing

  /** Registers a request about to be sent; null once the run has stopped issuing. */
  Issued issue(long index, long intended) {
    synchronized (this) {
      if (!lifecycle.issuing()) {
        releasePermit();
        return null;
      }
      Issued request = new Issued(intended);
      issued.put(index, request);
      return request;
    }
  }

  /**
   * Sends one issued request on the current thread (a blocking target) and makes sure it ends as
   * one record; returns that record, or empty when the core recorded the request itself because
   * the run ended first.
   */
  Optional<RequestRecord> send(long index, Issued issuedRequest, RequestSpec spec) {
    Begun begun = begin(index, issuedRequest, spec, r -> {});
    if (begun == null) {
      return Optional.empty(); // the run ended before this thread got to the request; the core recorded it
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
  void start(long index, Issued issuedRequest, RequestSpec spec, Consumer<RequestRecord> then) {
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

  /** Builds the request and its timeline and marks it begun; null if the core already recorded it. */
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
        recordFailedBeforeSend(index, issuedRequest, spec, "a listener's beforeSend threw " + t);
      }
      return null;
    }
    long intendedOffset = issuedRequest.intended - origin;
    boolean warmup = load.isWarmup(index, intendedOffset);
    if (!warmup && !health.measuredBegun()) {
      health.measuredRequestBegins();
    }
    Cancellation cancellation = new Cancellation();
    TokenTimeline timeline = TokenTimeline.builder(clock).index(index).requestId(request.id())
        .tags(spec.prompt().tags()).warmup(warmup)
        .cooldown(load.isCooldown(index, intendedOffset)).originNanos(origin).intendedNanos(issuedRequest.intended)
        .sendNanos(clock.nanoTime()).captureText(captureText).onDone(r -> {
          done(index, r);
          then.accept(r);
        }).build();
    if (!issuedRequest.begin(timeline, cancellation)) {
      return null;
    }
    if (lifecycle.cancellingOrFinished()) {
      timeline.onFailure(Failure.of(ErrorCategory.CANCELLED, lifecycle.cancelReason()), clock.nanoTime());
      cancellation.cancel();
    }
    return new Begun(request, timeline, cancellation);
  }

  /** The workload's request, or an exception naming the index when it returned null. */
  static RequestSpec requireSpec(RequestSpec spec, long index) {
    if (spec == null) {
      throw new NullPointerException("the workload returned null for request " + index);
    }
    return spec;
  }

  /**
   * Records a request whose workload failed to produce it as a {@link ErrorCategory#CLIENT} failure,
   * so the run goes on with every record accounted for; false once the run has stopped issuing.
   */
  boolean recordWorkloadFailure(long index, long intended, Throwable cause) {
    LOG.warn("run {}: the workload failed to build request {}: {}", runId, index, cause.toString());
    Issued issuedRequest = issue(index, intended);
    if (issuedRequest == null) {
      return false;
    }
    if (issuedRequest.abandon()) {
      recordFailedBeforeSend(index, issuedRequest, null, "the workload failed to build this request: " + cause);
    }
    return true;
  }

  private void recordFailedBeforeSend(long index, Issued request, RequestSpec spec, String message) {
    long at = request.intended - origin;
    RequestRecord r = RequestRecord.builder().index(index).requestId(requestId(index))
        .tags(spec == null ? Map.of() : spec.prompt().tags()).warmup(load.isWarmup(index, at))
        .cooldown(load.isCooldown(index, at)).intendedNanos(at).sendNanos(Math.max(at, clock.nanoTime() - origin))
        .failure(Optional.of(Failure.of(ErrorCategory.CLIENT, message))).build();
    synchronized (this) {
      if (issued.remove(index, request) && !closed) {
        accept(r); // unless the core recorded it already at the end of a drain
      }
      notifyAll();
    }
  }

  /** A request dispatched early whose send time never came (deadline or stop): recorded as not sent. */
  void abandonUnsent(long index, Issued request) {
    synchronized (this) {
      if (request.abandon() && issued.remove(index, request) && !closed) {
        accept(notSent(index, request.intended));
      }
      notifyAll();
    }
  }

  String requestId(long index) {
    return "im-" + runId + "-" + index;
  }

  /** A record for a scheduled request that was never sent, intended at {@code intended} (a clock reading). */
  RequestRecord notSent(long index, long intended) {
    long at = intended - origin;
    return RequestRecord.builder().index(index).requestId(requestId(index))
        .tags(tagsOf(index, at)).warmup(load.isWarmup(index, at))
        .cooldown(load.isCooldown(index, at)).intendedNanos(at).sendNanos(at)
        .failure(Optional.of(Failure.of(ErrorCategory.NOT_SENT, lifecycle.notSentReason())))
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

  /** Records a scheduled request the load mode never got to send. */
  synchronized void recordNotSent(long index, long intended) {
    if (!closed) {
      accept(notSent(index, intended));
    }
  }

  /**
   * A closed loop limited only by count promised {@code requests + warmup} requests; those its
   * streams never got to (a timeout, a stop) are recorded as not sent, so none goes missing.
   */
  synchronized void recordNeverIssued() {
    if (closed) {
      return;
    }
    long now = clock.nanoTime();
    int total = (int) load.totalRequests();
    for (int i = recorded.nextClearBit(0); i < total; i = recorded.nextClearBit(i + 1)) {
      accept(notSent(i, now));
    }
  }

  private void done(long index, RequestRecord record) {
    releasePermit();
    synchronized (this) {
      if (issued.remove(index) != null && !closed) { // else the core recorded it already
        accept(record);
      }
      notifyAll();
    }
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
    ErrorCategory category = record.failure().map(Failure::category).orElse(null);
    if (category == ErrorCategory.NOT_SENT) {
      notSent++;
    } else if (category == ErrorCategory.CANCELLED) {
      cancelled++;
    } else {
      completed++;
    }
    if (category != ErrorCategory.NOT_SENT) { // a never-sent request's "send" is its intended time, maybe far ahead
      lastEndNanos = Math.max(lastEndNanos, record.sendNanos() + record.endOffsetNanos());
    }
    health.observe(record); // the scale the client's error bound is weighed against
    if (control != null) {
      control.onRecord(record);
    }
    listeners.record(record);
  }

  // ---------------------------------------------------------------------------------------------
  // Draining and cancelling

  /**
   * Waits for every issued request to end, until the lifecycle's drain deadline (re-read as it
   * goes: a stop can bring it closer). At the deadline it cancels what is left: each request in
   * flight has its target told to abort (the target records it as {@link ErrorCategory#CANCELLED}),
   * each one issued but not yet begun is recorded as not sent; a target that has not reported within
   * a short grace is recorded as cancelled by the core itself. The run then ends on time with exactly
   * one record per issued request.
   */
  void drain() {
    if (awaitIssued()) {
      return;
    }
    List<Map.Entry<Long, Issued>> left;
    synchronized (this) {
      lifecycle.cancelling(); // from here no request is issued, and one that begins is cancelled at once
      left = List.copyOf(issued.entrySet());
    }
    if (left.isEmpty()) {
      return;
    }
    String why = lifecycle.cancelReason();
    LOG.info("run {}: {} requests still in flight; {}", runId, left.size(), why);
    for (Map.Entry<Long, Issued> e : left) {
      Issued r = e.getValue();
      if (r.abandon()) {
        synchronized (this) {
          if (issued.remove(e.getKey(), r)) {
            accept(notSent(e.getKey(), r.intended));
          }
          notifyAll();
        }
      } else if (r.begun()) {
        r.cancellation.cancel(); // the target reports the cancellation itself, stamped when it stopped
      }
    }
    // A request abandoned concurrently by its own thread is being recorded there; give it a moment.
    long grace = clock.nanoTime() + CANCEL_GRACE_NANOS;
    awaitIssuedUntil(grace);
    synchronized (this) {
      if (!issued.isEmpty()) {
        LOG.warn("run {}: {} requests did not report within the cancel grace; recording them itself", runId,
            issued.size());
        String late = why + "; the target did not stop in time";
        for (Map.Entry<Long, Issued> e : List.copyOf(issued.entrySet())) {
          Issued r = e.getValue();
          if (r.begun()) {
            // Recorded through done() unless the timeline had ended and its done() waits for this lock.
            r.timeline.onFailure(Failure.of(ErrorCategory.CANCELLED, late), clock.nanoTime());
            if (issued.remove(e.getKey(), r)) {
              accept(r.timeline.record().orElseThrow());
            }
          } else if (issued.remove(e.getKey(), r)) { // its own thread abandoned it and never recorded it
            accept(notSent(e.getKey(), r.intended));
          }
        }
      }
    }
  }

  /** Waits until nothing is in flight or the lifecycle's drain deadline passes; true if nothing is. */
  private boolean awaitIssued() {
    synchronized (this) {
      while (!issued.isEmpty()) {
        long remaining = lifecycle.drainDeadline() - clock.nanoTime();
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

  private void awaitIssuedUntil(long deadline) {
    synchronized (this) {
      while (!issued.isEmpty()) {
        long remaining = deadline - clock.nanoTime();
        if (remaining <= 0) {
          return;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(this, Math.min(remaining, SLICE_NANOS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /**
   * Ends the bookkeeping: records a count-limited closed loop's never-issued requests, and drops any
   * record that arrives later (it was recorded already). Returns the records kept, in arrival order.
   */
  synchronized List<RequestRecord> close() {
    // with a duration, stopping short of the count is the duration's doing; sessions promise no count
    if (load.isClosedLoop() && load.duration().isEmpty() && !(workload instanceof SessionWorkload) && !closed) {
      recordNeverIssued();
    }
    closed = true;
    return new ArrayList<>(records);
  }

  synchronized StreamingScheduleStats streamingSchedule() {
    return streamingSchedule;
  }

  synchronized long lastEndNanos() {
    return lastEndNanos;
  }

  /** Requests that ended on their own, were cancelled, and were never sent, in that order. */
  synchronized long[] outcomeCounts() {
    return new long[] {completed, cancelled, notSent};
  }
}
