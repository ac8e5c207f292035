package io.infermark.metrics;

import io.infermark.core.Interruption;
import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What a summary was measured on: a run's metadata without its records, so that a summary stays small
 * after the records are gone.
 *
 * @param startedAt wall-clock time of the run's origin, for correlation only
 * @param durationNanos from the run's origin to the end of its last request
 * @param target a description of the target (never containing credentials)
 * @param load the load profile
 * @param params the generation parameters
 * @param promptCount how many distinct prompts were cycled through
 * @param environment the JVM and machine
 * @param clientHealth whether the client could be trusted during the run ({@link ClientHealth#UNMEASURED}
 *     when the run did not measure it)
 * @param insecureTls true when the run's TLS certificates and host names were not verified
 *     ({@link RunResult#insecureTls()}): reports show a banner
 * @param interruption how the run was cut short ({@link RunResult#interruption()}): reports show it; empty for a
 *     run that ended by its own limits
 */
public record RunInfo(Instant startedAt, long durationNanos, String target, LoadProfile load,
    GenerationParams params, int promptCount, RunEnvironment environment, ClientHealth clientHealth,
    boolean insecureTls, Optional<Interruption> interruption) {

  /** The banner reports show for a run whose TLS was not verified. */
  public static final String INSECURE_TLS_WARNING = "TLS verification was OFF (insecureTls): the servers were not "
      + "authenticated, so these figures may come from any server that answered.";

  /** Validates. */
  public RunInfo {
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(params, "params");
    Objects.requireNonNull(environment, "environment");
    Objects.requireNonNull(clientHealth, "clientHealth");
    Objects.requireNonNull(interruption, "interruption");
  }

  /** Metadata of a run that ended by its own limits. */
  public RunInfo(Instant startedAt, long durationNanos, String target, LoadProfile load, GenerationParams params,
      int promptCount, RunEnvironment environment, ClientHealth clientHealth, boolean insecureTls) {
    this(startedAt, durationNanos, target, load, params, promptCount, environment, clientHealth, insecureTls,
        Optional.empty());
  }

  /** Metadata with TLS taken as verified. */
  public RunInfo(Instant startedAt, long durationNanos, String target, LoadProfile load, GenerationParams params,
      int promptCount, RunEnvironment environment, ClientHealth clientHealth) {
    this(startedAt, durationNanos, target, load, params, promptCount, environment, clientHealth, false);
  }

  /** Metadata without client health ({@link ClientHealth#UNMEASURED}). */
  public RunInfo(Instant startedAt, long durationNanos, String target, LoadProfile load, GenerationParams params,
      int promptCount, RunEnvironment environment) {
    this(startedAt, durationNanos, target, load, params, promptCount, environment, ClientHealth.UNMEASURED);
  }

  /** The metadata of a run. */
  public static RunInfo of(RunResult run) {
    return new RunInfo(run.startedAt(), run.durationNanos(), run.target(), run.load(), run.params(),
        run.promptCount(), run.environment(), run.clientHealth(), run.insecureTls(), run.interruption());
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "RunInfo[%s against %s, %.3f s, %s%s]", startedAt, target, durationNanos / 1e9,
        load, (clientHealth.isMeasured() ? ", client " + clientHealth.verdict() : "")
        + (insecureTls ? ", INSECURE TLS" : "") + interruption.map(i -> ", INTERRUPTED (" + i.reason() + ")")
        .orElse(""));
  }
}
