package io.infermark.core.health;

import io.infermark.core.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A {@link Probe} of an executor's backlog: every interval (by default 10 ms while the process keeps half a core
 * busy, up to 100 ms while it is nearly idle, see {@link LoadFollower}; or a fixed {@link #interval(Duration)}) a
 * timer thread
 * ({@value #THREAD_NAME}) hands the executor a tiny task and records how long it waited before it
 * started. For an event loop (a Netty {@code EventLoop} is an {@link Executor}) that wait is the
 * loop's read backlog: how long a socket that became readable waits before its bytes are read and
 * stamped.
 *
 * <p>One task is outstanding at a time: while it waits, no more are queued, and when it finally runs its
 * wait is recorded with the coordinated-omission correction for the interval (as {@link HiccupMeter}
 * does), so a 100 ms stall weighs as the ten probes it delayed. A task still waiting when the probe
 * stops is recorded as waiting until then. An executor that rejects a task ends the measurement.
 *
 * <pre>{@code
 * ClientHealthMonitor.builder().probe(LoopLag.of("event loop", eventLoop)).build().start();
 * }</pre>
 */
public final class LoopLag implements Probe {

  /** The name of each measurement's timer thread. */
  public static final String THREAD_NAME = "infermark-loop-lag";
  /** The default interval between probe tasks. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(10);
  private static final long HIGHEST_NANOS = TimeUnit.HOURS.toNanos(1);
  private static final long IDLE = Long.MIN_VALUE;
  /** Set at the stop: no task is handed over any more. */
  private static final long STOPPED = Long.MIN_VALUE + 1;

  private final String name;
  private final Executor executor;
  private final long intervalNanos;
  private final Clock clock;
  /** Whether the interval follows the load ({@link LoadFollower}, up to ten times the base). */
  private final boolean adaptive;

  private LoopLag(String name, Executor executor, long intervalNanos, Clock clock, boolean adaptive) {
    this.name = name;
    this.executor = executor;
    this.intervalNanos = intervalNanos;
    this.clock = clock;
    this.adaptive = adaptive;
  }

  /** A probe of {@code executor} every 10 ms while the process is busy, up to every 100 ms while it is nearly idle. */
  public static LoopLag of(String name, Executor executor) {
    return new LoopLag(Objects.requireNonNull(name, "name"), Objects.requireNonNull(executor, "executor"),
        DEFAULT_INTERVAL.toNanos(), Clock.system(), true);
  }

  /**
   * The same probe with another interval.
   *
   * @throws IllegalArgumentException if the interval is not positive
   */
  public LoopLag interval(Duration interval) {
    Objects.requireNonNull(interval, "interval");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("the probe interval must be > 0, was " + interval);
    }
    return new LoopLag(name, executor, interval.toNanos(), clock, false);
  }

  /** The interval between probe tasks (the base one, when it follows the load). */
  public Duration interval() {
    return Duration.ofNanos(intervalNanos);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Measurement start() {
    Running r = new Running();
    Thread t = new Thread(r::tick, THREAD_NAME);
    t.setDaemon(true);
    r.thread = t;
    t.start();
    return r;
  }

  /** One measurement: a timer thread, at most one task outstanding, a recorder. */
  private final class Running implements Measurement {
    private final Recorder recorder = new Recorder(HIGHEST_NANOS, 2);
    /** When the outstanding task was handed over, or {@link #IDLE}. */
    private final AtomicLong submitted = new AtomicLong(IDLE);
    private volatile boolean running = true;
    private Thread thread;
    private LatencyStats result;
    /** The interval's current multiple of the base, read by the recording executor thread. */
    private volatile int multiple = 1;

    void tick() {
      java.util.function.LongSupplier cpu = adaptive ? LoadFollower.processCpu() : null;
      LoadFollower follower = cpu == null ? null : new LoadFollower(cpu, 10);
      long next = clock.nanoTime();
      while (running) {
        long now = clock.nanoTime();
        if (now < next) {
          LockSupport.parkNanos(next - now);
          continue;
        }
        if (follower != null) {
          multiple = follower.multiple(now);
        }
        next = now + intervalNanos * multiple;
        if (submitted.compareAndSet(IDLE, now)) {
          try {
            executor.execute(this::probed);
          } catch (RejectedExecutionException e) {
            submitted.set(IDLE);
            return;
          }
        }
      }
    }

    /** The probe task: records its own wait, unless the measurement already counted it at its stop. */
    private void probed() {
      long at = submitted.get();
      if (at != IDLE && at != STOPPED && submitted.compareAndSet(at, IDLE)) {
        record(clock.nanoTime() - at);
      }
    }

    /** As HdrHistogram's recordValueWithExpectedInterval, each value counting for the base intervals it stands for. */
    private void record(long lateNanos) {
      long late = Math.min(Math.max(lateNanos, 0), HIGHEST_NANOS);
      int k = multiple;
      long interval = intervalNanos * k;
      recorder.recordValueWithCount(late, k);
      for (long missing = late - interval; missing >= interval; missing -= interval) {
        recorder.recordValueWithCount(missing, k);
      }
    }

    @Override
    public synchronized LatencyStats stop() {
      if (result != null) {
        return result;
      }
      running = false;
      // STOPPED, not IDLE: the timer thread may be past its running check and must not hand over another task
      long at = submitted.getAndSet(STOPPED);
      if (at != IDLE && at != STOPPED) {
        record(clock.nanoTime() - at); // still waiting: it has waited at least this long
      }
      LockSupport.unpark(thread);
      try {
        thread.join(1_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      Histogram h = recorder.getIntervalHistogram();
      result = LatencyStats.of(h);
      return result;
    }
  }

  @Override
  public String toString() {
    return "LoopLag[" + name + " every " + intervalNanos / 1e6 + " ms" + (adaptive ? " or up to 10 times that" : "")
        + "]";
  }
}
