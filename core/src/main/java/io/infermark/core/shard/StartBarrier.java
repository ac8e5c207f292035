package io.infermark.core.shard;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Holds a run until an agreed wall-clock time, so that shards on several machines start their
 * schedules together (see {@code Benchmark.startBarrier}). Machines should be NTP-synchronised; the
 * residual skew shifts one shard's schedule against another's and is not measured here.
 *
 * <p>The wall clock is injectable for tests. A barrier already passed releases at once.
 */
public final class StartBarrier {

  private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final Instant at;
  private final Clock wallClock;

  private StartBarrier(Instant at, Clock wallClock) {
    this.at = at;
    this.wallClock = wallClock;
  }

  /** A barrier at {@code at} on the system wall clock. */
  public static StartBarrier at(Instant at) {
    return new StartBarrier(Objects.requireNonNull(at, "at"), Clock.systemUTC());
  }

  /** The same barrier read from another wall clock. */
  public StartBarrier wallClock(Clock clock) {
    return new StartBarrier(at, Objects.requireNonNull(clock, "wallClock"));
  }

  /** When the barrier opens. */
  public Instant at() {
    return at;
  }

  /** The wall clock the barrier reads. */
  public Clock clock() {
    return wallClock;
  }

  /**
   * Blocks until the wall clock reads {@link #at()} or later (parking in slices of at most 10 ms and
   * reading the clock again each time), then returns the wall clock's reading.
   *
   * @throws IllegalStateException if the thread is interrupted while waiting
   */
  public Instant await() {
    while (true) {
      Instant now = wallClock.instant();
      Duration left = Duration.between(now, at);
      if (left.isNegative() || left.isZero()) {
        return now;
      }
      LockSupport.parkNanos(Math.min(left.toNanos(), SLICE_NANOS));
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the start barrier at " + at);
      }
    }
  }

  @Override
  public String toString() {
    return "StartBarrier[" + at + "]";
  }
}
