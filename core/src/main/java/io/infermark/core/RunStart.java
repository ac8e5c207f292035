package io.infermark.core;

import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What a run is about to do, given to {@link RunListener#onRunStarted}: when it starts, on which
 * clock, against what, and how many requests it plans if that is known in advance.
 *
 * @param startedAt wall-clock time of the run's origin, for correlation only
 * @param originNanos the run clock's reading at the origin; records' times are offsets from it
 * @param clock the run's monotonic clock, for listeners that show elapsed time
 * @param target a description of the target (never containing credentials)
 * @param load the load profile
 * @param params the generation parameters
 * @param plannedRequests requests the run will issue, warmup included, when known before it starts
 *     (a count limit or a precomputed schedule); empty for a closed loop limited only by duration
 */
public record RunStart(Instant startedAt, long originNanos, Clock clock, String target, LoadProfile load,
    GenerationParams params, OptionalLong plannedRequests) {

  /** Validates. */
  public RunStart {
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(params, "params");
    Objects.requireNonNull(plannedRequests, "plannedRequests");
  }


  /**
   * Epoch nanoseconds of a time given as nanoseconds from the run's origin (a record's
   * {@code sendNanos}, a chunk's send plus offset): {@code startedAt + nanosFromOrigin}. The one
   * monotonic-to-epoch mapping of a run: {@link RunStart#epochNanos} and {@link RunResult#epochNanos}
   * give the same answer, and the OpenTelemetry client spans are stamped with it, so spans, records
   * and a profiler's or server's epoch timestamps line up. A reading {@code t} of the run's clock is
   * {@code epochNanos(t - originNanos)}.
   *
   * @throws ArithmeticException if the result does not fit a long (past the year 2262)
   */
  public long epochNanos(long nanosFromOrigin) {
    return Math.addExact(Math.multiplyExact(startedAt.getEpochSecond(), 1_000_000_000L) + startedAt.getNano(),
        nanosFromOrigin);
  }

  @Override
  public String toString() {
    return "RunStart[" + (plannedRequests.isPresent() ? plannedRequests.getAsLong() + " planned requests, " : "")
        + target + ", " + load + "]";
  }
}
