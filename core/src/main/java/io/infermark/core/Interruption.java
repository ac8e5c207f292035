package io.infermark.core;

import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * How a run was cut short: why, when, and what became of its requests. A run that ended by its own
 * limits has none ({@link RunResult#interruption()} is empty); one stopped by a signal, by its host
 * ({@link BenchmarkRun#stop}) or rebuilt from a journal whose run never finished has one, and every
 * report shows it.
 *
 * @param reason what stopped the run, e.g. {@code SIGINT}, {@code SIGTERM}, {@code stopped by the host},
 *     or why a rebuilt run is incomplete
 * @param at wall-clock time of the stop, for correlation only
 * @param atNanos when the stop came, in nanoseconds from the run's origin (0 when unknown)
 * @param completed requests that ended on their own, succeeded or failed (neither cancelled nor never sent)
 * @param cancelled requests in flight when the drain time ran out, recorded as
 *     {@link io.infermark.core.capture.ErrorCategory#CANCELLED}
 * @param notSent scheduled requests that were never sent
 *     ({@link io.infermark.core.capture.ErrorCategory#NOT_SENT})
 * @param unknown requests whose outcome is unknown: planned, but with no record (a journal cut short by
 *     {@code kill -9} or a crash); 0 for a run that ended in this process
 */
public record Interruption(String reason, Instant at, long atNanos, long completed, long cancelled, long notSent,
    long unknown) {

  /** Validates. */
  public Interruption {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
    if (completed < 0 || cancelled < 0 || notSent < 0 || unknown < 0) {
      throw new IllegalArgumentException("counts must be >= 0: completed " + completed + ", cancelled " + cancelled
          + ", not sent " + notSent + ", unknown " + unknown);
    }
  }

  /** One line for consoles and logs: why, when, and the four counts. */
  public String summary() {
    return String.format(Locale.ROOT, "interrupted (%s) at %s, %.3f s into the run: %d completed, %d cancelled, "
        + "%d never sent%s", reason, at, atNanos / 1e9, completed, cancelled, notSent,
        unknown > 0 ? ", " + unknown + " without a record (outcome unknown)" : "");
  }

  @Override
  public String toString() {
    return "Interruption[" + summary() + "]";
  }
}
