package io.infermark.core.health;

import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The CPU this JVM used over a span of wall time, and how loaded the machine was. The process's CPU
 * time counts every thread of the JVM: a server running in the same JVM (the testkit simulator) counts
 * too.
 *
 * @param processCpuNanos CPU time the JVM process used over the span, all threads and cores together,
 *     at the operating system's accounting resolution (10 ms clock ticks on Linux, so a run of a few
 *     milliseconds may show 0); empty where the JVM does not report it
 * @param wallNanos the span's length
 * @param availableProcessors the cores the JVM may use
 * @param systemLoadAverage the operating system's one-minute load average at the span's end (runnable
 *     threads of the whole machine, smoothed over a minute); empty where unavailable (Windows)
 */
public record CpuUsage(OptionalLong processCpuNanos, long wallNanos, int availableProcessors,
    OptionalDouble systemLoadAverage) {

  /**
   * The shortest span whose CPU share is judged: the operating system counts CPU time in ticks (10 ms on
   * Linux), so over a shorter span the share is off by more than a few percent.
   */
  public static final long MIN_JUDGED_WALL_NANOS = 1_000_000_000L;

  /** Nothing measured. */
  public static final CpuUsage UNMEASURED = new CpuUsage(OptionalLong.empty(), 0, 1, OptionalDouble.empty());

  /** Validates. */
  public CpuUsage {
    Objects.requireNonNull(processCpuNanos, "processCpuNanos");
    Objects.requireNonNull(systemLoadAverage, "systemLoadAverage");
    if (wallNanos < 0 || availableProcessors < 1) {
      throw new IllegalArgumentException("need wallNanos >= 0 and availableProcessors >= 1, were " + wallNanos + ", "
          + availableProcessors);
    }
    if (processCpuNanos.isPresent() && processCpuNanos.getAsLong() < 0) {
      throw new IllegalArgumentException("processCpuNanos must be >= 0, was " + processCpuNanos.getAsLong());
    }
  }

  /** Cores the process kept busy on average: CPU time / wall time (1.5 = one and a half cores). */
  public OptionalDouble coresUsed() {
    if (processCpuNanos.isEmpty() || wallNanos <= 0) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of((double) processCpuNanos.getAsLong() / wallNanos);
  }

  /** {@link #coresUsed()} as a share of the available cores, 0 to 1 (and a little above from rounding). */
  public OptionalDouble shareOfCores() {
    OptionalDouble cores = coresUsed();
    return cores.isPresent() ? OptionalDouble.of(cores.getAsDouble() / availableProcessors) : OptionalDouble.empty();
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CpuUsage[%s of %d cores%s]",
        coresUsed().isPresent() ? String.format(Locale.ROOT, "%.2f", coresUsed().getAsDouble()) : "?",
        availableProcessors, systemLoadAverage.isPresent()
            ? String.format(Locale.ROOT, ", load average %.2f", systemLoadAverage.getAsDouble()) : "");
  }
}
