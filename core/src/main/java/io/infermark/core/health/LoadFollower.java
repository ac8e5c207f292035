package io.infermark.core.health;

import java.util.function.LongSupplier;

/**
 * Chooses how many base periods a periodic monitor ({@link HiccupMeter}, {@link LoopLag}) waits between two
 * samples, from the process's own CPU use: every 250 ms it takes the CPU used over the last window, in cores, and
 * sets k = ⌈0.5 core ÷ cores used⌉ within [1, max]. So a monitor samples at its base rate while the client keeps
 * half a core busy or more, and up to max times less often while it is nearly idle: its cost follows the load it
 * watches and stays a few percent of the client's own. Used by one thread; not thread-safe.
 */
final class LoadFollower {

  /** From this much CPU use of the process on, in cores, the monitor samples at its base rate. */
  static final double FULL_RATE_CORES = 0.5;
  /** How often the multiple is chosen. */
  static final long WINDOW_NANOS = 250_000_000L;

  private final LongSupplier cpuNanos;
  private final int max;
  private int multiple = 1;
  private long next = Long.MIN_VALUE;
  private long windowStart;
  private long cpuAtStart;

  /**
   * @param cpuNanos the process's CPU time so far
   * @param max the largest multiple
   */
  LoadFollower(LongSupplier cpuNanos, int max) {
    if (max < 1) {
      throw new IllegalArgumentException("max must be >= 1, was " + max);
    }
    this.cpuNanos = cpuNanos;
    this.max = max;
  }

  /** The process's CPU time, or null where the JVM does not report it. */
  static LongSupplier processCpu() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os && os.getProcessCpuTime() >= 0) {
      return os::getProcessCpuTime;
    }
    return null;
  }

  /** The multiple to wait now (a clock reading): 1 until a first window has passed. */
  int multiple(long now) {
    if (next == Long.MIN_VALUE) {
      windowStart = now;
      cpuAtStart = cpuNanos.getAsLong();
      next = now + WINDOW_NANOS;
    } else if (now >= next) {
      long cpu = cpuNanos.getAsLong();
      double cores = (double) (cpu - cpuAtStart) / Math.max(1, now - windowStart);
      multiple = cores <= 0 ? max : (int) Math.max(1, Math.min(max, Math.ceil(FULL_RATE_CORES / cores)));
      windowStart = now;
      cpuAtStart = cpu;
      next = now + WINDOW_NANOS;
    }
    return multiple;
  }

  /** The largest multiple. */
  int max() {
    return max;
  }
}
