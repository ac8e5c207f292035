package io.infermark.core.session;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.workload.RequestSpec;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/**
 * What a {@link SessionWorkload} needs from the run engine to issue its calls: the run's clock, load
 * and deadlines, a way to start one request (which the engine turns into exactly one record), and one
 * thread to run session steps and timers on. Implemented by the engine; host code does not call it.
 */
public interface SessionCalls {

  /** The run's load profile: concurrency (concurrent sessions) or arrivals (session arrivals). */
  LoadProfile load();

  /** The run's generation parameters. */
  GenerationParams params();

  /** The run's clock, in nanoseconds. */
  long nanoTime();

  /** The run's origin on {@link #nanoTime()}. */
  long originNanos();

  /** After this clock reading nothing more is issued. */
  long issueDeadlineNanos();

  /** True once the run was asked to stop. */
  boolean stopRequested();

  /**
   * Starts request {@code index} intended at {@code intendedNanos} (a clock reading); {@code then} gets
   * its record on any thread once it has ended. False, with nothing started or recorded, when the run no
   * longer issues.
   */
  boolean start(long index, RequestSpec spec, long intendedNanos, Consumer<RequestRecord> then);

  /** Runs {@code task} on the session thread. */
  void execute(Runnable task);

  /** Runs {@code task} on the session thread after {@code delayNanos}. */
  void schedule(Runnable task, long delayNanos);

  /** Waits until {@code done} opens, the run's hard deadline passes or the run is stopped. */
  void await(CountDownLatch done);
}
