package io.infermark.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.HealthVerdict;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * A run's own facts, read back from the {@code NAME.infermark.json} that {@code bench} writes beside its
 * result JSON and records: when it started, its load profile, the generation parameters, the environment and
 * the client's health verdict. A run rebuilt from records alone knows none of these; {@link #attach} puts them
 * back so {@code report} and {@code explain} describe the run as it was, not as 1970 with one stream.
 */
final class RunFacts {

  private RunFacts() {}

  /** The {@code .infermark.json} beside a records file or a result JSON, if there is one. */
  static Optional<Path> reportFile(Path given) {
    String name = given.getFileName().toString();
    if (name.endsWith(".infermark.json")) {
      return Files.isReadable(given) ? Optional.of(given) : Optional.empty();
    }
    String stem = RecordFiles.label(given);
    Path sibling = given.resolveSibling(stem + ".infermark.json");
    return Files.isReadable(sibling) ? Optional.of(sibling) : Optional.empty();
  }

  /**
   * The run with the facts of the report beside {@code given} in place of the blanks a records file leaves;
   * the run unchanged when there is no such report.
   *
   * @throws CliException (exit 3) if the report exists but cannot be read as one
   */
  static RunResult attach(Path given, RunResult fromRecords) {
    Optional<Path> file = reportFile(given);
    if (file.isEmpty()) {
      return fromRecords;
    }
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(file.get().toFile());
    } catch (IOException e) {
      throw new CliException(Infermark.FAILED, file.get() + " is not a readable infermark report: " + e.getMessage());
    }
    JsonNode run = root.path("run");
    if (!run.isObject()) {
      throw new CliException(Infermark.FAILED, file.get() + " has no \"run\" block: not an infermark report");
    }
    Instant started = instant(run.path("started_at")).orElse(fromRecords.startedAt());
    LoadProfile load = load(run.path("load"), fromRecords.records().size()).orElse(fromRecords.load());
    GenerationParams params = params(run.path("params")).orElse(fromRecords.params());
    RunEnvironment env = environment(run.path("environment")).orElse(fromRecords.environment());
    OptionalDouble requested = number(run.path("load").path("requested_rate_rps"));
    ClientHealth health = health(root.path("client_health")).orElse(fromRecords.clientHealth());
    String target = run.path("target").isTextual() ? run.path("target").asText() : fromRecords.target();
    int prompts = run.path("prompt_count").canConvertToInt() ? run.path("prompt_count").asInt()
        : fromRecords.promptCount();
    return new RunResult(fromRecords.records(), true, started, fromRecords.originNanos(), fromRecords.durationNanos(),
        target, load, params, prompts, env, ScheduleStats.of(fromRecords.records(), requested), List.of(), health,
        fromRecords.insecureTls(), fromRecords.interruption());
  }

  private static Optional<Instant> instant(JsonNode n) {
    if (!n.isTextual()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(n.asText()));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** The load profile the report describes: a closed loop of N streams, or the arrivals it names. */
  static Optional<LoadProfile> load(JsonNode n, int records) {
    if (!n.isObject()) {
      return Optional.empty();
    }
    LoadProfile p;
    if ("closed_loop".equals(n.path("mode").asText())) {
      if (!n.path("concurrency").canConvertToInt() || n.path("concurrency").asInt() < 1) {
        return Optional.empty();
      }
      p = LoadProfile.concurrency(n.path("concurrency").asInt());
    } else {
      String description = n.path("arrival_process").asText("");
      p = LoadProfile.arrivals(new Recorded(description, number(n.path("requested_rate_rps"))));
      if (n.path("max_in_flight").canConvertToInt()) {
        p = p.maxInFlight(n.path("max_in_flight").asInt());
      }
    }
    if (n.path("requests").canConvertToInt() && n.path("requests").asInt() > 0) {
      p = p.requests(n.path("requests").asInt());
    } else if (n.path("duration_s").isNumber() && n.path("duration_s").asDouble() > 0) {
      p = p.duration(Duration.ofNanos(Math.round(n.path("duration_s").asDouble() * 1e9)));
    } else {
      p = p.requests(Math.max(1, records));
    }
    if (n.path("warmup_requests").canConvertToInt() && n.path("warmup_requests").asInt() > 0) {
      p = p.warmupRequests(n.path("warmup_requests").asInt());
    }
    if (n.path("seed").canConvertToLong()) {
      p = p.seed(n.path("seed").asLong());
    }
    return Optional.of(p);
  }

  private static Optional<GenerationParams> params(JsonNode n) {
    if (!n.isObject()) {
      return Optional.empty();
    }
    GenerationParams.Builder b = GenerationParams.builder().stream(n.path("stream").asBoolean(true))
        .ignoreEos(n.path("ignore_eos").asBoolean(false));
    if (n.path("max_tokens").canConvertToInt()) {
      b.maxTokens(n.path("max_tokens").asInt());
    }
    if (n.path("temperature").isNumber()) {
      b.temperature(n.path("temperature").asDouble());
    }
    return Optional.of(b.build());
  }

  private static Optional<RunEnvironment> environment(JsonNode n) {
    if (!n.isObject() || !n.path("java_version").isTextual()) {
      return Optional.empty();
    }
    return Optional.of(new RunEnvironment(n.path("java_version").asText(), n.path("java_vendor").asText(""),
        n.path("os_name").asText(""), n.path("os_arch").asText(""), Math.max(1, n.path("available_processors").asInt(1)),
        Math.max(0, n.path("max_heap_bytes").asLong(0)), n.path("virtual_threads").asBoolean(false)));
  }

  /** The verdict, reasons and floor the run was judged with; its figures are not kept. */
  static Optional<ClientHealth> health(JsonNode n) {
    if (!n.isObject() || !n.path("verdict").isTextual()) {
      return Optional.empty();
    }
    HealthVerdict verdict;
    try {
      verdict = HealthVerdict.valueOf(n.path("verdict").asText().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (verdict == HealthVerdict.UNMEASURED) {
      return Optional.of(ClientHealth.UNMEASURED);
    }
    List<String> reasons = new ArrayList<>();
    n.path("reasons").forEach(r -> reasons.add(r.asText()));
    long floor = Math.max(0, Math.round(n.path("floor_ms").asDouble(0) * 1e6));
    return Optional.of(new ClientHealth(verdict, verdict.isWarning() ? reasons : List.of(), floor, Optional.empty()));
  }

  private static OptionalDouble number(JsonNode n) {
    return n.isNumber() ? OptionalDouble.of(n.asDouble()) : OptionalDouble.empty();
  }

  /**
   * The arrivals of a run read back: described as the run recorded them; never scheduled again (a report
   * does not re-run a benchmark).
   */
  private record Recorded(String description, OptionalDouble nominalRate) implements ArrivalProcess {
    @Override
    public long[] schedule(int maxCount, long limitNanos, long seed) {
      throw new UnsupportedOperationException("the arrivals of a run read back from its report (" + description
          + ") cannot be scheduled again");
    }

    @Override
    public String toString() {
      return description.isEmpty() ? "open loop (arrivals not recorded)" : description;
    }
  }
}
