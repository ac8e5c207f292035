package io.infermark.core.run;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.session.SessionCalls;
import io.infermark.core.session.SessionWorkload;
import io.infermark.core.workload.RequestSpec;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The load mode of a {@link SessionWorkload}: the workload's session driver decides every call, this
 * class issues each over the run's {@link IssuingCore} (started from the session thread on an
 * asynchronous target, on a request thread of its own on a blocking one), so each call still ends as
 * exactly one record.
 */
final class SessionLoop implements LoadMode, SessionCalls {

  private final IssuingCore core;
  private final ExecutorService executor;
  private final ScheduledExecutorService sessionThread;
  private final SessionWorkload workload;

  SessionLoop(IssuingCore core, ExecutorService executor, ScheduledExecutorService sessionThread,
      SessionWorkload workload) {
    if (core.limitsAtSend()) {
      throw new IllegalArgumentException("a session workload cannot run under an in-flight cap or token pacing"
          + " (the sessions' concurrency is their own); remove maxInFlight/limits from the load profile");
    }
    int parallel = workload.source().maxParallelCalls();
    if (parallel > 1) {
      // fan-outs put several calls of one session in flight: no hidden cap on the transport
      core.target.prepare((int) Math.min(Integer.MAX_VALUE, (long) core.load.expectedMaxInFlight() * parallel));
    }
    this.core = core;
    this.executor = executor;
    this.sessionThread = sessionThread;
    this.workload = workload;
  }

  @Override
  public void issue() {
    workload.issue(this);
  }

  @Override
  public LoadProfile load() {
    return core.load;
  }

  @Override
  public GenerationParams params() {
    return core.params;
  }

  @Override
  public long nanoTime() {
    return core.clock.nanoTime();
  }

  @Override
  public long originNanos() {
    return core.origin;
  }

  @Override
  public long issueDeadlineNanos() {
    return core.lifecycle.issueDeadline();
  }

  @Override
  public boolean stopRequested() {
    return core.lifecycle.stopRequested();
  }

  @Override
  public boolean start(long index, RequestSpec spec, long intendedNanos, Consumer<RequestRecord> then) {
    IssuingCore.Issued request = core.issue(index, intendedNanos);
    if (request == null) {
      return false;
    }
    if (core.async) {
      core.start(index, request, spec, then);
      return true;
    }
    try {
      executor.execute(() -> core.send(index, request, spec).ifPresent(then));
    } catch (RejectedExecutionException e) {
      core.abandonUnsent(index, request);
      return false;
    }
    return true;
  }

  @Override
  public void execute(Runnable task) {
    try {
      sessionThread.execute(task);
    } catch (RejectedExecutionException e) {
      // the run is over: nothing more happens in its sessions
    }
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    try {
      sessionThread.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // the run is over
    }
  }

  @Override
  public void await(CountDownLatch done) {
    core.await(done, core.lifecycle.hardDeadline());
  }
}
