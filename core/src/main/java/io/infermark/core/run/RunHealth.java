package io.infermark.core.run;

import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.ClientHealthMonitor;
import io.infermark.core.health.HealthThresholds;
import io.infermark.core.load.LoadProfile;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The run's client-health monitor over the measured part of the run. The client is judged over the
 * span its statistics cover: a warmup is there to absorb class loading, JIT compilation and
 * connection set-up, whose stalls (a cold I/O thread can stall 150 ms) would otherwise mark a sound
 * run as client-bound. So the first measured request to begin after a warmup starts a fresh
 * monitor, and the warmup's figures are dropped.
 */
final class RunHealth {

  private final Supplier<ClientHealthMonitor> factory;
  private final boolean hasWarmup;
  private final AtomicBoolean measuredBegun = new AtomicBoolean();
  private ClientHealthMonitor monitor;
  private boolean stopped;

  /** Starts the first monitor now. */
  RunHealth(Supplier<ClientHealthMonitor> factory, LoadProfile load) {
    this.factory = factory;
    this.hasWarmup = load.warmupRequests() > 0 || load.warmupTime().isPresent();
    this.monitor = factory.get();
  }

  /** A measured (not warmup) request is beginning: after a warmup, the first one restarts the monitor. */
  void measuredRequestBegins() {
    if (!hasWarmup || measuredBegun.get() || !measuredBegun.compareAndSet(false, true)) {
      return;
    }
    ClientHealthMonitor fresh = factory.get();
    ClientHealthMonitor old;
    synchronized (this) {
      if (stopped) {
        old = fresh; // the run is over: keep the figures it has
      } else {
        old = monitor;
        monitor = fresh;
      }
    }
    old.stop();
  }

  /** True once a measured request has begun (always true for a run without warmup). */
  boolean measuredBegun() {
    return !hasWarmup || measuredBegun.get();
  }

  /** A record ended: the monitor weighs its error bound against the latencies the run measures. */
  void observe(io.infermark.core.capture.RequestRecord record) {
    ClientHealthMonitor m;
    synchronized (this) {
      m = monitor;
    }
    m.observe(record);
  }

  /** Stops the monitor for good: no later request swaps in a fresh one. */
  void stop() {
    ClientHealthMonitor m;
    synchronized (this) {
      stopped = true;
      m = monitor;
    }
    m.stop();
  }

  /** The verdict over the monitored span, with the run's schedule figures. */
  synchronized ClientHealth verdict(ScheduleStats schedule, LoadProfile load, HealthThresholds thresholds) {
    return monitor.health(schedule, load, thresholds);
  }
}
