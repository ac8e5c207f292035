package io.infermark.core;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Everything one run produced: a record per scheduled request (warmup included, flagged) and the
 * run's metadata: what was run against what, when, on which machine, and whether the client kept
 * its schedule. Summaries are computed from it by the {@code metrics} module.
 *
 * @param records one record per scheduled request, ordered by {@link RequestRecord#index()}
 * @param startedAt wall-clock time of the run's origin, for correlation only
 * @param originNanos the run clock's reading at the origin: add it to a record's times to compare
 *     them with other readings of the same clock (server ground truth in the same JVM, host logs)
 * @param durationNanos from the run's origin to the end of its last request
 * @param target a description of the target (never containing credentials)
 * @param load the load profile
 * @param params the generation parameters
 * @param promptCount how many distinct prompts were cycled through
 * @param environment the JVM and machine
 * @param schedule requested vs achieved rate and schedule lag
 */
public record RunResult(List<RequestRecord> records, Instant startedAt, long originNanos, long durationNanos,
    String target, LoadProfile load, GenerationParams params, int promptCount, RunEnvironment environment,
    ScheduleStats schedule) {

  /** Validates and copies. */
  public RunResult {
    records = List.copyOf(records);
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(params, "params");
    Objects.requireNonNull(environment, "environment");
    Objects.requireNonNull(schedule, "schedule");
    if (durationNanos < 0) {
      throw new IllegalArgumentException("durationNanos must be >= 0, was " + durationNanos);
    }
  }

  /** Records that count for statistics: not warmup. */
  public List<RequestRecord> measured() {
    return records.stream().filter(r -> !r.warmup()).toList();
  }

  /** Number of measured requests that failed. */
  public long failureCount() {
    return records.stream().filter(r -> !r.warmup() && !r.succeeded()).count();
  }

  @Override
  public String toString() {
    long measured = records.stream().filter(r -> !r.warmup()).count();
    return String.format(Locale.ROOT, "RunResult[%d requests (%d measured, %d failed) in %.3f s against %s, %s]",
        records.size(), measured, failureCount(), durationNanos / 1e9, target, load);
  }
}
