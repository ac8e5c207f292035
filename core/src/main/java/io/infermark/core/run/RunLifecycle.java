package io.infermark.core.run;

import io.infermark.core.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The states a run goes through, and the one place that decides when it stops issuing, how long
 * its requests in flight may still run, and when they are cancelled.
 *
 * <pre>
 *   CREATED ──start──▶ ISSUING ──limits reached, deadline or stop──▶ DRAINING ──all ended──▶ FINISHED
 *                                                                        │
 *                                                     drain deadline ────▶ CANCELLING ──▶ FINISHED
 * </pre>
 *
 * <p>A run stops issuing when its load profile's limits are reached (count, duration, the hard
 * timeout) or when {@link #requestStop} is called from any thread (a signal handler, a host's own
 * stop). Requests in flight then drain until the drain deadline: for a run that ended by its
 * limits, the profile's {@link io.infermark.core.load.LoadProfile#drainTimeout()} after its
 * duration (or its {@link io.infermark.core.load.LoadProfile#timeout()}); for a stop, the stop's
 * own drain time, which a later stop can only shorten (a second Ctrl-C cancels at once). What is
 * still in flight at the drain deadline is cancelled.
 *
 * <p>Thread-safe. The state is read without locking on the hot paths ({@link #issuing()}); every
 * transition is made under the lifecycle's lock.
 */
public final class RunLifecycle {

  /** Where a run is. */
  public enum State {
    /** Not started: the run has no origin yet. */
    CREATED,
    /** Issuing requests as the load profile says. */
    ISSUING,
    /** No more requests are issued; those in flight may finish until the drain deadline. */
    DRAINING,
    /** The drain deadline passed: whatever is still in flight is being cancelled. */
    CANCELLING,
    /** Every request has its record. */
    FINISHED
  }

  /** A stop asked for from outside the run. */
  public record Stop(String reason, long requestedAtNanos, Instant requestedAt, long drainUntilNanos) {}

  private final Clock clock;
  private volatile State state = State.CREATED;
  private volatile Stop stop;
  private long origin;
  private long issueDeadline = Long.MAX_VALUE;
  private long hardDeadline = Long.MAX_VALUE;
  private long limitDrainDeadline = Long.MAX_VALUE;

  /** A lifecycle reading time from {@code clock}. */
  public RunLifecycle(Clock clock) {
    this.clock = clock;
  }

  /**
   * Starts the run at {@code origin}: it issues until {@code issueDeadline} (its duration), drains
   * until {@code limitDrainDeadline} once its limits end it, and never runs past
   * {@code hardDeadline} (its timeout). All are readings of the run's clock, MAX_VALUE when unbounded.
   */
  synchronized void start(long origin, long issueDeadline, long limitDrainDeadline, long hardDeadline) {
    if (state != State.CREATED) {
      throw new IllegalStateException("a run starts once; this one is " + state);
    }
    this.origin = origin;
    this.issueDeadline = issueDeadline;
    this.limitDrainDeadline = Math.min(limitDrainDeadline, hardDeadline);
    this.hardDeadline = hardDeadline;
    state = stop == null ? State.ISSUING : State.DRAINING;
  }

  /**
   * Asks the run to stop: no request is issued from now on, and those in flight get {@code drain}
   * to finish before they are cancelled. A later call can shorten the drain, never lengthen it; the
   * first call's reason is the one the result reports. Callable from any thread, before or during
   * the run; does nothing once the run has finished.
   *
   * @return true if this call stopped the run or shortened its drain
   */
  public synchronized boolean requestStop(String reason, Duration drain) {
    if (state == State.FINISHED) {
      return false;
    }
    long now = clock.nanoTime();
    long until = saturatedAdd(now, drain.toNanos());
    if (stop == null) {
      stop = new Stop(reason, now, Instant.now(), until);
    } else if (until < stop.drainUntilNanos()) {
      stop = new Stop(stop.reason(), stop.requestedAtNanos(), stop.requestedAt(), until);
    } else {
      return false;
    }
    if (state == State.ISSUING) {
      state = State.DRAINING;
    }
    notifyAll();
    return true;
  }

  /** True while the run may issue requests: started, not stopped, and before its issue deadline. */
  boolean issuing() {
    return state == State.ISSUING;
  }

  /** True once the run stopped issuing for any reason. */
  boolean stoppedIssuing() {
    State s = state;
    return s != State.CREATED && s != State.ISSUING;
  }

  /** True once a stop was asked for. */
  public boolean stopRequested() {
    return stop != null;
  }

  /** The stop asked for, if any. */
  public Optional<Stop> stop() {
    return Optional.ofNullable(stop);
  }

  /** The run's limits ended its issuing (count reached, schedule walked, duration over). */
  synchronized void limitsReached() {
    if (state == State.ISSUING) {
      state = State.DRAINING;
    }
  }

  /** The run's origin, a clock reading. */
  synchronized long origin() {
    return origin;
  }

  /** When issuing ends at the latest: the run's duration. */
  synchronized long issueDeadline() {
    return issueDeadline;
  }

  /** When the run ends at the latest whatever happens: its timeout. */
  synchronized long hardDeadline() {
    return hardDeadline;
  }

  /**
   * When requests still in flight are cancelled: the stop's drain deadline if a stop came, else the
   * deadline the profile's limits give, and never after the hard deadline. Re-read it while waiting:
   * a stop can move it closer.
   */
  synchronized long drainDeadline() {
    long limits = limitDrainDeadline;
    return stop == null ? limits : Math.min(Math.min(limits, stop.drainUntilNanos()), hardDeadline);
  }

  /** The drain deadline passed: cancelling what is left. */
  synchronized void cancelling() {
    if (state != State.FINISHED) {
      state = State.CANCELLING;
    }
  }

  /** True once requests in flight are being cancelled (or the run finished). */
  boolean cancellingOrFinished() {
    State s = state;
    return s == State.CANCELLING || s == State.FINISHED;
  }

  /** Every request has its record; later stops are ignored. */
  synchronized void finished() {
    state = State.FINISHED;
    notifyAll();
  }

  /** The current state. */
  public State state() {
    return state;
  }

  /** Why a request that was never sent was not: the stop's reason, or the run's end. */
  String notSentReason() {
    Stop s = stop;
    return s == null ? "the run ended before this request was sent"
        : "the run was stopped (" + s.reason() + ") before this request was sent";
  }

  /** Why a request still in flight at the drain deadline was cancelled. */
  String cancelReason() {
    Stop s = stop;
    if (s == null) {
      return "cancelled at the run deadline";
    }
    long drainNanos = Math.max(0, s.drainUntilNanos() - s.requestedAtNanos());
    return drainNanos == 0 ? "cancelled at once by a stop (" + s.reason() + ")"
        : String.format(java.util.Locale.ROOT, "cancelled by a stop (%s): still in flight when its %.1f s drain ran out",
            s.reason(), drainNanos / 1e9);
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  @Override
  public String toString() {
    Stop s = stop;
    return "RunLifecycle[" + state + (s == null ? "" : ", stopped: " + s.reason()) + "]";
  }
}
