package io.infermark.core;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.control.ControlStep;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one run produced: a record per scheduled request (warmup and cooldown included, flagged) and the
 * run's metadata: what was run against what, when, on which machine, and whether the client kept
 * its schedule. Summaries are computed from it by the {@code metrics} module.
 *
 * @param records one record per scheduled request, ordered by {@link RequestRecord#index()}; empty when
 *     the run did not retain them
 * @param recordsRetained false when the run was told not to keep its records
 *     ({@link Benchmark#retainRecords(boolean)}): they went only to its listeners, and
 *     {@link #records()} throws instead of returning an empty list a summary would misread
 * @param startedAt wall-clock time of the run's origin, for correlation only
 * @param originNanos the run clock's reading at the origin: add it to a record's times to compare
 *     them with other readings of the same clock (server ground truth in the same JVM, host logs)
 * @param durationNanos from the run's origin to the end of its last request that was sent, or to its stop when that
 *     came later (a never-sent request adds nothing)
 * @param target a description of the target (never containing credentials)
 * @param load the load profile
 * @param params the generation parameters
 * @param promptCount how many distinct prompts were cycled through
 * @param environment the JVM and machine
 * @param schedule requested vs achieved rate and schedule lag
 * @param control a controlled run's trajectory: (time, measured signal, offered rate) per control
 *     step; empty for other runs
 * @param clientHealth whether the client itself could be trusted during the run: a verdict with its
 *     reasons and measurement floor ({@link ClientHealth#UNMEASURED} for results built by hand or merged)
 * @param insecureTls true when the target did not verify TLS certificates or host names
 *     ({@link io.infermark.core.target.Target#insecureTls()}): its servers were not authenticated, every
 *     record says so and reports show a banner
 * @param interruption how the run was cut short (a signal, its host's {@link BenchmarkRun#stop stop}, a
 *     journal without an end); empty for a run that ended by its own limits
 */
public record RunResult(List<RequestRecord> records, boolean recordsRetained, Instant startedAt, long originNanos, long durationNanos,
    String target, LoadProfile load, GenerationParams params, int promptCount, RunEnvironment environment,
    ScheduleStats schedule, List<ControlStep> control, ClientHealth clientHealth, boolean insecureTls,
    Optional<Interruption> interruption) {

  /** Validates and copies. */
  public RunResult {
    records = List.copyOf(records);
    control = List.copyOf(control);
    if (!recordsRetained && !records.isEmpty()) {
      throw new IllegalArgumentException("a run that did not retain its records cannot carry " + records.size());
    }
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(params, "params");
    Objects.requireNonNull(environment, "environment");
    Objects.requireNonNull(schedule, "schedule");
    Objects.requireNonNull(clientHealth, "clientHealth");
    Objects.requireNonNull(interruption, "interruption");
    if (durationNanos < 0) {
      throw new IllegalArgumentException("durationNanos must be >= 0, was " + durationNanos);
    }
  }

  /** A result of a run that ended by its own limits (not interrupted). */
  public RunResult(List<RequestRecord> records, boolean recordsRetained, Instant startedAt, long originNanos,
      long durationNanos, String target, LoadProfile load, GenerationParams params, int promptCount,
      RunEnvironment environment, ScheduleStats schedule, List<ControlStep> control, ClientHealth clientHealth,
      boolean insecureTls) {
    this(records, recordsRetained, startedAt, originNanos, durationNanos, target, load, params, promptCount,
        environment, schedule, control, clientHealth, insecureTls, Optional.empty());
  }

  /** A result whose TLS is taken as verified unless one of its records says otherwise. */
  public RunResult(List<RequestRecord> records, boolean recordsRetained, Instant startedAt, long originNanos,
      long durationNanos, String target, LoadProfile load, GenerationParams params, int promptCount,
      RunEnvironment environment, ScheduleStats schedule, List<ControlStep> control, ClientHealth clientHealth) {
    this(records, recordsRetained, startedAt, originNanos, durationNanos, target, load, params, promptCount,
        environment, schedule, control, clientHealth, records.stream().anyMatch(RequestRecord::insecureTls));
  }

  /** A result whose client was not measured ({@link ClientHealth#UNMEASURED}): built by hand, merged, or read back. */
  public RunResult(List<RequestRecord> records, boolean recordsRetained, Instant startedAt, long originNanos,
      long durationNanos, String target, LoadProfile load, GenerationParams params, int promptCount,
      RunEnvironment environment, ScheduleStats schedule, List<ControlStep> control) {
    this(records, recordsRetained, startedAt, originNanos, durationNanos, target, load, params, promptCount,
        environment, schedule, control, ClientHealth.UNMEASURED);
  }

  /** A result without a control trajectory or client health (built by hand, merged, or read back). */
  public RunResult(List<RequestRecord> records, boolean recordsRetained, Instant startedAt, long originNanos,
      long durationNanos, String target, LoadProfile load, GenerationParams params, int promptCount,
      RunEnvironment environment, ScheduleStats schedule) {
    this(records, recordsRetained, startedAt, originNanos, durationNanos, target, load, params, promptCount,
        environment, schedule, List.of(), ClientHealth.UNMEASURED);
  }

  /**
   * Epoch nanoseconds of a time given as nanoseconds from the run's origin (a record's
   * {@code sendNanos}, a chunk's send plus offset): {@code startedAt + nanosFromOrigin}. The one
   * monotonic-to-epoch mapping of a run: {@link RunStart#epochNanos} and this
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

  /** The same result with another client health (for instance re-judged against other thresholds). */
  public RunResult withClientHealth(ClientHealth health) {
    return new RunResult(records, recordsRetained, startedAt, originNanos, durationNanos, target, load, params,
        promptCount, environment, schedule, control, health, insecureTls, interruption);
  }

  /** The same result marked as cut short (or, with an empty value, as complete). */
  public RunResult withInterruption(Optional<Interruption> how) {
    return new RunResult(records, recordsRetained, startedAt, originNanos, durationNanos, target, load, params,
        promptCount, environment, schedule, control, clientHealth, insecureTls, how);
  }

  /** True when the run was cut short: {@link #interruption()} says how. */
  public boolean interrupted() {
    return interruption.isPresent();
  }

  /**
   * One record per scheduled request, ordered by index.
   *
   * @throws IllegalStateException if the run did not retain its records
   */
  @Override
  public List<RequestRecord> records() {
    requireRecords();
    return records;
  }

  /**
   * Records that count for statistics: neither warmup nor cooldown ({@link RequestRecord#measured()}).
   *
   * @throws IllegalStateException if the run did not retain its records
   */
  public List<RequestRecord> measured() {
    requireRecords();
    return records.stream().filter(RequestRecord::measured).toList();
  }

  /**
   * Number of measured requests that failed.
   *
   * @throws IllegalStateException if the run did not retain its records
   */
  public long failureCount() {
    requireRecords();
    return records.stream().filter(r -> r.measured() && !r.succeeded()).count();
  }

  private void requireRecords() {
    if (!recordsRetained) {
      throw new IllegalStateException("this run did not retain its records (Benchmark.retainRecords(false)); "
          + "summarise it with a listener that saw them as they came");
    }
  }

  @Override
  public String toString() {
    if (!recordsRetained) {
      return String.format(Locale.ROOT, "RunResult[records not retained, %d sent in %.3f s against %s, %s%s]",
          schedule.sent(), durationNanos / 1e9, target, load, healthText());
    }
    long measured = records.stream().filter(RequestRecord::measured).count();
    return String.format(Locale.ROOT, "RunResult[%d requests (%d measured, %d failed) in %.3f s against %s, %s%s]",
        records.size(), measured, failureCount(), durationNanos / 1e9, target, load, healthText());
  }

  private String healthText() {
    return (clientHealth.isMeasured() ? ", client " + clientHealth.verdict() : "")
        + interruption.map(i -> ", INTERRUPTED (" + i.reason() + ")").orElse("")
        + (insecureTls ? ", INSECURE TLS (servers not authenticated)" : "");
  }
}
