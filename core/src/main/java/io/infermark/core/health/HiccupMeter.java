package io.infermark.core.health;

import io.infermark.core.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Measures how late this JVM's threads get to run, as jHiccup does: a daemon platform thread
 * ({@value #THREAD_NAME}) sleeps for the resolution (1 ms by default) in a loop and records how much
 * later than asked it woke up. A quiet machine wakes it within tens of microseconds; a busy CPU, a
 * stop-the-world GC pause, a page fault storm or a descheduled VM all show up as lateness, and every
 * thread of the client (the ones that stamp chunk arrival times included) suffered the same at the
 * same moment.
 *
 * <p>Each lateness {@code h} is recorded with HdrHistogram's coordinated-omission correction for the
 * expected interval (as jHiccup does): a 50 ms stall also counts the 49 samples the thread would have
 * taken during it, at 49, 48, … 1 ms, so the percentiles are over time, not over wake-ups, and a run's
 * p99 is "the lateness exceeded in 1 % of the run's time".
 *
 * <pre>{@code
 * HiccupMeter meter = HiccupMeter.start();
 * ... run ...
 * LatencyStats hiccups = meter.stop();   // p50, p99, p99.9, max in ns
 * }</pre>
 *
 * <p><b>Adaptive period</b> ({@link #startAdaptive()}, what {@link ClientHealthMonitor} uses by default): each wake
 * costs the machine a few tens of microseconds (21 µs measured on a shared 2-core VM), which at one stream is more
 * than the client's own work per token. So the meter may sleep a whole multiple k of its base resolution (1 to 10
 * times 1 ms), chosen every 250 ms from the process's own CPU use over the last window: k = ⌈0.5 core / CPU in
 * cores⌉, so it wakes every millisecond while the client keeps half a core busy or more and every 10 ms while it
 * is nearly idle, and its cost stays a few percent of the client's. A sample taken after a sleep of k base periods
 * counts k times (and its coordinated-omission fill-ins likewise), so the percentiles stay "over the run's time"
 * whatever the period; at a long period they rest on fewer wakes.
 *
 * <p>Thread-safe: one thread records (into a {@link SingleWriterRecorder}); {@link #snapshot()} and
 * {@link #stop()} may be called from any thread.
 */
public final class HiccupMeter implements AutoCloseable {

  /** The name of the meter's thread. */
  public static final String THREAD_NAME = "infermark-hiccup";
  /** The default sleep: 1 ms, jHiccup's default resolution. */
  public static final Duration DEFAULT_RESOLUTION = Duration.ofMillis(1);
  /** Larger lateness is recorded as this (an hour): a meter never fails for a suspended laptop. */
  private static final long HIGHEST_NANOS = TimeUnit.HOURS.toNanos(1);
  /** How long {@link #stop()} waits for the thread to notice. */
  private static final long JOIN_MILLIS = 1_000;

  /** The longest period an adaptive meter sleeps, in base periods. */
  public static final int MAX_MULTIPLE = 10;

  private final Clock clock;
  private final LongConsumer sleeper;
  private final long resolutionNanos;
  /** Chooses the period of an adaptive meter; null for a fixed one. */
  private final LoadFollower follower;
  private int multiple = 1;
  private volatile long wakes;
  private volatile long sleptNanos;
  private final SingleWriterRecorder recorder = new SingleWriterRecorder(HIGHEST_NANOS, 2);
  /** Everything recorded and taken from the recorder so far; guarded by {@code this}. */
  private final Histogram total = new Histogram(HIGHEST_NANOS, 2);
  private Histogram interval;
  private volatile boolean running = true;
  private Thread thread;
  private LatencyStats last;

  /**
   * A meter that reads {@code clock} and sleeps with {@code sleeper}; nothing runs until a thread
   * calls {@link #sampleOnce()} (tests drive it by hand; {@link #start(Duration)} starts the thread).
   */
  HiccupMeter(Clock clock, LongConsumer sleeper, long resolutionNanos) {
    this(clock, sleeper, resolutionNanos, 1, null);
  }

  /**
   * A meter whose period adapts to {@code cpuNanos}' growth between 1 and {@code maxMultiple} base periods (a fixed
   * one when {@code cpuNanos} is null); driven by hand in tests.
   */
  HiccupMeter(Clock clock, LongConsumer sleeper, long resolutionNanos, int maxMultiple,
      java.util.function.LongSupplier cpuNanos) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    if (resolutionNanos <= 0) {
      throw new IllegalArgumentException("the hiccup resolution must be > 0, was " + resolutionNanos + " ns");
    }
    if (maxMultiple < 1) {
      throw new IllegalArgumentException("maxMultiple must be >= 1, was " + maxMultiple);
    }
    this.resolutionNanos = resolutionNanos;
    this.follower = cpuNanos == null ? null : new LoadFollower(cpuNanos, maxMultiple);
  }

  /** Starts a meter with the default 1 ms resolution on the system clock. */
  public static HiccupMeter start() {
    return start(DEFAULT_RESOLUTION);
  }

  /**
   * Starts a meter that sleeps {@code resolution} between readings of the system clock.
   *
   * @throws IllegalArgumentException if the resolution is not positive
   */
  public static HiccupMeter start(Duration resolution) {
    Objects.requireNonNull(resolution, "resolution");
    if (resolution.isNegative() || resolution.isZero()) {
      throw new IllegalArgumentException("the hiccup resolution must be > 0, was " + resolution);
    }
    return started(new HiccupMeter(Clock.system(), LockSupport::parkNanos, resolution.toNanos()));
  }

  /**
   * Starts a meter of 1 ms base resolution whose period follows this process's CPU use, from every 1 ms to every
   * {@value #MAX_MULTIPLE} ms (see the class description); a fixed 1 ms meter where the JVM does not report its CPU.
   */
  public static HiccupMeter startAdaptive() {
    java.util.function.LongSupplier cpu = LoadFollower.processCpu();
    return started(new HiccupMeter(Clock.system(), LockSupport::parkNanos, DEFAULT_RESOLUTION.toNanos(),
        cpu == null ? 1 : MAX_MULTIPLE, cpu));
  }

  private static HiccupMeter started(HiccupMeter meter) {
    Thread t = new Thread(meter::loop, THREAD_NAME);
    t.setDaemon(true);
    // Above normal priority, as jHiccup's: the meter should show what the OS does to the JVM, not lose
    // ties to the client's own busy threads (the OS may ignore it; Linux usually does).
    t.setPriority(Thread.NORM_PRIORITY + 1);
    meter.thread = t;
    t.start();
    return meter;
  }

  private void loop() {
    while (running) {
      sampleOnce();
    }
  }

  /**
   * Sleeps once and records how late the sleep ended. Called by the meter's thread only (a
   * hand-driven meter's single caller in tests). A sleep that ended because the meter was stopped is
   * not recorded.
   */
  void sampleOnce() {
    int k = multiple;
    long period = resolutionNanos * k;
    long before = clock.nanoTime();
    sleeper.accept(period);
    long after = clock.nanoTime();
    if (!running) {
      return;
    }
    long late = Math.min(Math.max(0, after - before - period), HIGHEST_NANOS);
    // As HdrHistogram's recordValueWithExpectedInterval, each value counting for the k base periods it stands for.
    recorder.recordValueWithCount(late, k);
    for (long missing = late - period; missing >= period; missing -= period) {
      recorder.recordValueWithCount(missing, k);
    }
    wakes++;
    sleptNanos += after - before;
    if (follower != null) {
      multiple = follower.multiple(after);
    }
  }

  /** How many times the meter woke so far: what it cost the machine. */
  public long wakes() {
    return wakes;
  }

  /** The mean time between wakes so far (the resolution until the first wake). */
  public Duration meanPeriod() {
    long w = wakes;
    return Duration.ofNanos(w == 0 ? resolutionNanos : sleptNanos / w);
  }

  /** The base resolution: how long each sleep asks for (a multiple of it, for an adaptive meter). */
  public Duration resolution() {
    return Duration.ofNanos(resolutionNanos);
  }

  /** Whether the meter is still measuring. */
  public boolean isRunning() {
    return running;
  }

  /** The lateness recorded so far (the meter goes on). */
  public synchronized LatencyStats snapshot() {
    if (!running) {
      return last;
    }
    drain();
    return LatencyStats.of(total);
  }

  /**
   * Stops the meter and returns everything it recorded; later calls return the same figures.
   * Waits up to a second for the thread to end.
   */
  public synchronized LatencyStats stop() {
    if (!running) {
      return last;
    }
    running = false;
    Thread t = thread;
    if (t != null && t != Thread.currentThread()) {
      LockSupport.unpark(t);
      try {
        t.join(JOIN_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    drain();
    last = LatencyStats.of(total);
    return last;
  }

  /** Same as {@link #stop()}. */
  @Override
  public void close() {
    stop();
  }

  private void drain() {
    interval = recorder.getIntervalHistogram(interval);
    total.add(interval);
  }

  @Override
  public String toString() {
    return "HiccupMeter[" + resolutionNanos / 1e6 + " ms" + (follower != null ? " up to " + follower.max() + "x" : "")
        + ", " + wakes + " wakes, " + (running ? "running" : "stopped") + "]";
  }
}
