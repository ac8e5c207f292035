package io.infermark.core;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.control.ControlStep;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

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
 *     ({@link io.infermark.core.protocol.Target#insecureTls()}): its servers were not authenticated, every
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
    return toBuilder().clientHealth(health).build();
  }

  /** The same result marked as cut short (or, with an empty value, as complete). */
  public RunResult withInterruption(Optional<Interruption> how) {
    return toBuilder().interruption(how).build();
  }

  /**
   * A builder for a result made by hand, merged from shards or read back from a journal. {@code target},
   * {@code load} and {@code startedAt} are required; the rest defaults to: no records (retained),
   * origin and duration 0, {@link GenerationParams#defaults()}, 0 prompts, this JVM's environment, the
   * schedule statistics of the records against the load's nominal rate, no control trajectory,
   * {@link ClientHealth#UNMEASURED}, TLS insecure only if a record says so, not interrupted.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding every value of this result. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.records = records;
    b.recordsRetained = recordsRetained;
    b.startedAt = startedAt;
    b.originNanos = originNanos;
    b.durationNanos = durationNanos;
    b.target = target;
    b.load = load;
    b.params = params;
    b.promptCount = promptCount;
    b.environment = environment;
    b.schedule = schedule;
    b.control = control;
    b.clientHealth = clientHealth;
    b.insecureTls = Optional.of(insecureTls);
    b.interruption = interruption;
    return b;
  }

  /** Builds a {@link RunResult}; see {@link RunResult#builder()} for the defaults. Not thread-safe. */
  public static final class Builder {
    private List<RequestRecord> records = List.of();
    private boolean recordsRetained = true;
    private Instant startedAt;
    private long originNanos;
    private long durationNanos;
    private String target;
    private LoadProfile load;
    private GenerationParams params = GenerationParams.defaults();
    private int promptCount;
    private RunEnvironment environment;
    private ScheduleStats schedule;
    private List<ControlStep> control = List.of();
    private ClientHealth clientHealth = ClientHealth.UNMEASURED;
    private Optional<Boolean> insecureTls = Optional.empty();
    private Optional<Interruption> interruption = Optional.empty();

    private Builder() {}

    /** The records, one per scheduled request, ordered by index; they are retained. */
    public Builder records(List<RequestRecord> records) {
      this.records = Objects.requireNonNull(records, "records");
      this.recordsRetained = true;
      return this;
    }

    /** The run did not retain its records (they went only to its listeners); a schedule must then be given. */
    public Builder recordsNotRetained() {
      this.records = List.of();
      this.recordsRetained = false;
      return this;
    }

    /** Wall-clock time of the run's origin. Required. */
    public Builder startedAt(Instant startedAt) {
      this.startedAt = Objects.requireNonNull(startedAt, "startedAt");
      return this;
    }

    /** The run clock's reading at the origin, in nanoseconds. */
    public Builder originNanos(long originNanos) {
      this.originNanos = originNanos;
      return this;
    }

    /** From the run's origin to the end of its last request, in nanoseconds. */
    public Builder durationNanos(long durationNanos) {
      this.durationNanos = durationNanos;
      return this;
    }

    /** A description of the target, without credentials. Required. */
    public Builder target(String target) {
      this.target = Objects.requireNonNull(target, "target");
      return this;
    }

    /** The load profile. Required. */
    public Builder load(LoadProfile load) {
      this.load = Objects.requireNonNull(load, "load");
      return this;
    }

    /** The generation parameters. */
    public Builder params(GenerationParams params) {
      this.params = Objects.requireNonNull(params, "params");
      return this;
    }

    /** How many distinct prompts were cycled through. */
    public Builder promptCount(int promptCount) {
      this.promptCount = promptCount;
      return this;
    }

    /** The JVM and machine. */
    public Builder environment(RunEnvironment environment) {
      this.environment = Objects.requireNonNull(environment, "environment");
      return this;
    }

    /** Requested vs achieved rate and schedule lag. */
    public Builder schedule(ScheduleStats schedule) {
      this.schedule = Objects.requireNonNull(schedule, "schedule");
      return this;
    }

    /** A controlled run's trajectory. */
    public Builder control(List<ControlStep> control) {
      this.control = Objects.requireNonNull(control, "control");
      return this;
    }

    /** Whether the client could be trusted during the run. */
    public Builder clientHealth(ClientHealth clientHealth) {
      this.clientHealth = Objects.requireNonNull(clientHealth, "clientHealth");
      return this;
    }

    /** Whether the target skipped TLS verification (by default: whether any record says so). */
    public Builder insecureTls(boolean insecureTls) {
      this.insecureTls = Optional.of(insecureTls);
      return this;
    }

    /** How the run was cut short; empty for a run that ended by its own limits. */
    public Builder interruption(Optional<Interruption> interruption) {
      this.interruption = Objects.requireNonNull(interruption, "interruption");
      return this;
    }

    /**
     * The result.
     *
     * @throws IllegalStateException if target, load or startedAt is missing, or records were not
     *     retained and no schedule was given
     */
    public RunResult build() {
      if (target == null || load == null || startedAt == null) {
        throw new IllegalStateException("a RunResult needs target, load and startedAt");
      }
      ScheduleStats s = schedule;
      if (s == null) {
        if (!recordsRetained) {
          throw new IllegalStateException("a RunResult whose records were not retained needs its schedule");
        }
        s = ScheduleStats.of(records, load.arrivalProcess().map(a -> a.nominalRate()).orElse(OptionalDouble.empty()));
      }
      return new RunResult(records, recordsRetained, startedAt, originNanos, durationNanos, target, load, params,
          promptCount, environment == null ? RunEnvironment.current(false) : environment, s, control, clientHealth,
          insecureTls.orElseGet(() -> records.stream().anyMatch(RequestRecord::insecureTls)), interruption);
    }
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
