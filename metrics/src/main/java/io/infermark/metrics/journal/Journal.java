package io.infermark.metrics.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.Interruption;
import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.HealthVerdict;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.metrics.report.RecordsJsonl;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A {@link RecordsJournal} read back: its header (how the run started), its records, its end line
 * (how the run ended) when the run got that far, and the lines that could not be read. It rebuilds
 * the run ({@link #toRunResult(LoadProfile, GenerationParams)}) so every report can be written from
 * the journal alone, including one cut short by {@code kill -9}, an out-of-memory death or an
 * eviction.
 *
 * <p>Reading never fails on a damaged line: a line that is not a whole record (the last one, cut
 * in the middle of a write when the process died; a line a full disk truncated) is skipped and
 * counted in {@link #unreadableLines()}, and {@link #warnings()} says which. It fails only when the
 * file cannot be read or holds no journal at all.
 *
 * @param file the journal's file
 * @param header the header line's fields; empty for a plain records file without one
 * @param records the records, in the order they completed
 * @param end the end line's fields; empty when the run never ended (the process died)
 * @param unreadableLines lines that were skipped because they are not whole records
 * @param lastLineTorn true when the last line was cut in the middle (the typical mark of a killed process)
 */
public record Journal(Path file, Optional<JsonNode> header, List<RequestRecord> records, Optional<JsonNode> end,
    int unreadableLines, boolean lastLineTorn) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Validates and copies. */
  public Journal {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(header, "header");
    records = List.copyOf(records);
    Objects.requireNonNull(end, "end");
  }

  /**
   * Reads a journal (or a plain records file, which has neither header nor end).
   *
   * @throws UncheckedIOException if the file cannot be read
   * @throws IllegalArgumentException if it holds neither a header nor any record
   */
  public static Journal read(Path file) {
    List<RequestRecord> records = new ArrayList<>();
    JsonNode header = null;
    JsonNode end = null;
    int unreadable = 0;
    boolean lastTorn = false;
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        boolean ok;
        try {
          if (JournalFormat.isHeader(line)) {
            header = header == null ? JSON.readTree(line) : header;
          } else if (JournalFormat.isEnd(line)) {
            end = JSON.readTree(line);
          } else {
            records.add(RecordsJsonl.parseLine(line));
          }
          ok = true;
        } catch (IOException | RuntimeException e) {
          ok = false;
        }
        lastTorn = !ok;
        if (!ok) {
          unreadable++;
        }
      }
    } catch (java.nio.charset.MalformedInputException e) {
      throw new IllegalArgumentException(file + " is not a records journal: it is not UTF-8 text");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the journal " + file + ": " + RecordsJournal.describe(e), e);
    }
    if (header == null && records.isEmpty()) {
      throw new IllegalArgumentException(file + " is not a records journal: it has no header and no readable record"
          + (unreadable > 0 ? " (" + unreadable + " unreadable lines)" : ""));
    }
    return new Journal(file, Optional.ofNullable(header), records, Optional.ofNullable(end), unreadable, lastTorn);
  }

  /** True when the run ended and wrote its end line (normally or after a stop). */
  public boolean complete() {
    return end.isPresent();
  }

  /** The header's {@code context} object (what the host put there, e.g. the CLI's settings); empty if none. */
  public Optional<JsonNode> context() {
    return header.map(h -> h.get("context")).filter(c -> c != null && c.isObject());
  }

  /** Requests the run planned (count limit or schedule), when the header says. */
  public OptionalLong plannedRequests() {
    JsonNode n = header.map(h -> h.get("planned_requests")).orElse(null);
    return n != null && n.canConvertToLong() ? OptionalLong.of(n.asLong()) : OptionalLong.empty();
  }

  /** What a reader should know about this journal: unreadable lines, a run that never ended. */
  public List<String> warnings() {
    List<String> w = new ArrayList<>();
    if (unreadableLines > 0) {
      w.add(String.format(Locale.ROOT, "%d line%s of %s could not be read and %s skipped%s", unreadableLines,
          unreadableLines == 1 ? "" : "s", file.getFileName(), unreadableLines == 1 ? "was" : "were",
          lastLineTorn ? " (the last line was cut: the process died while writing it)" : ""));
    }
    if (header.isPresent() && end.isEmpty()) {
      w.add("the run never ended: the journal has no end line (the process was killed or crashed); "
          + "its client health is unknown" + unknownText());
    }
    return w;
  }

  private String unknownText() {
    long unknown = unknownCount();
    return unknown > 0 ? ", and " + unknown + " planned requests have no record" : "";
  }

  private long unknownCount() {
    OptionalLong planned = plannedRequests();
    return planned.isPresent() ? Math.max(0, planned.getAsLong() - records.size()) : 0;
  }

  /**
   * Rebuilds the run with the host's own load profile and parameters (the journal keeps only their
   * description): its records, plus, when the run ended, a not-sent record for each request it counted
   * as never sent; its start, target, duration, environment and client health from the header and end
   * lines; and its interruption, from the end line, or, for a run that never ended, one that says so
   * (reason "the process died before the run ended") with the planned requests that have no record
   * counted as unknown.
   */
  public RunResult toRunResult(LoadProfile load, GenerationParams params) {
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(params, "params");
    List<RequestRecord> all = new ArrayList<>(records);
    long lastEnd = 0;
    for (RequestRecord r : records) {
      if (r.wasSent()) { // a never-sent request's intended time may lie far past the run's end
        lastEnd = Math.max(lastEnd, r.sendNanos() + r.endOffsetNanos());
      }
    }
    if (end.isPresent()) {
      addNotSent(all, load, lastEnd);
    }
    all.sort(Comparator.comparingLong(RequestRecord::index));
    Instant startedAt = header.map(h -> Instant.parse(h.path("started_at").asText(Instant.EPOCH.toString())))
        .orElse(Instant.EPOCH);
    long origin = header.map(h -> h.path("origin_ns").asLong()).orElse(0L);
    long duration = end.map(e -> e.path("duration_ns").asLong()).orElse(lastEnd);
    String target = header.map(h -> h.path("target").asText()).orElse("records from " + file.getFileName());
    JsonNode envNode = end.map(e -> e.get("environment")).orElse(header.map(h -> h.get("environment")).orElse(null));
    RunEnvironment env = envNode == null ? RunEnvironment.current(false) : environment(envNode);
    OptionalDouble rate = load.arrivalProcess().map(a -> a.nominalRate()).orElse(OptionalDouble.empty());
    if (rate.isPresent() && load.shardCount() > 1) {
      rate = OptionalDouble.of(rate.getAsDouble() / load.shardCount());
    }
    ClientHealth health = end.map(e -> e.get("client_health")).map(Journal::health).orElse(ClientHealth.UNMEASURED);
    boolean insecure = end.map(e -> e.path("insecure_tls").asBoolean()).orElse(false)
        || records.stream().anyMatch(RequestRecord::insecureTls);
    int prompts = end.map(e -> e.path("prompt_count").asInt()).orElse(0);
    return new RunResult(all, true, startedAt, origin, duration, target, load, params, prompts, env,
        ScheduleStats.of(all, rate), List.of(), health, insecure, interruption(startedAt, lastEnd));
  }

  /**
   * Rebuilds the run with a load profile approximated from the header (a closed loop of its streams,
   * or Poisson arrivals at its rate; the description is kept in the target's text) and its parameters.
   * Prefer {@link #toRunResult(LoadProfile, GenerationParams)} when the host knows its load profile.
   */
  public RunResult toRunResult() {
    JsonNode l = header.map(h -> h.get("load")).orElse(null);
    int requests = Math.max(1, l != null && l.has("requests") ? l.get("requests").asInt() : records.size());
    LoadProfile load;
    if (l != null && "open_loop".equals(l.path("mode").asText()) && l.has("requested_rate_rps")) {
      load = LoadProfile.poisson(l.get("requested_rate_rps").asDouble()).requests(requests);
    } else {
      load = LoadProfile.concurrency(Math.max(1, l != null ? l.path("concurrency").asInt(1) : 1)).requests(requests);
    }
    if (l != null && l.path("warmup_requests").asInt() > 0) {
      load = load.warmupRequests(l.get("warmup_requests").asInt());
    }
    if (l != null && l.path("shard_count").asInt(1) > 1) {
      load = load.shard(l.path("shard_index").asInt(), l.path("shard_count").asInt());
    }
    GenerationParams.Builder p = GenerationParams.builder();
    JsonNode params = header.map(h -> h.get("params")).orElse(null);
    if (params != null) {
      if (params.has("max_tokens")) {
        p.maxTokens(params.get("max_tokens").asInt());
      }
      if (params.has("temperature")) {
        p.temperature(params.get("temperature").asDouble());
      }
      p.ignoreEos(params.path("ignore_eos").asBoolean()).stream(params.path("stream").asBoolean(true));
    }
    return toRunResult(load, p.build());
  }

  private void addNotSent(List<RequestRecord> all, LoadProfile load, long at) {
    JsonNode ranges = end.get().path("not_sent").path("ranges");
    String message = end.get().has("interruption")
        ? "the run was stopped (" + end.get().path("interruption").path("reason").asText() + ") before this request "
            + "was sent"
        : "the run ended before this request was sent";
    Set<Long> present = new HashSet<>();
    for (RequestRecord r : records) {
      present.add(r.index());
    }
    for (JsonNode range : ranges) {
      long from = range.path(0).asLong();
      long to = range.path(1).asLong();
      for (long i = from; i <= to; i++) {
        if (present.contains(i)) {
          continue;
        }
        all.add(RequestRecord.builder().index(i).warmup(load.isWarmup(i, at)).cooldown(load.isCooldown(i, at))
            .intendedNanos(at).sendNanos(at).failure(Optional.of(Failure.of(ErrorCategory.NOT_SENT, message)))
            .build());
      }
    }
  }

  private Optional<Interruption> interruption(Instant startedAt, long lastEnd) {
    if (end.isPresent()) {
      JsonNode i = end.get().get("interruption");
      if (i == null || !i.isObject()) {
        return Optional.empty();
      }
      return Optional.of(new Interruption(i.path("reason").asText("unknown"),
          Instant.parse(i.path("at").asText(startedAt.toString())), i.path("at_ns").asLong(),
          i.path("completed").asLong(), i.path("cancelled").asLong(), i.path("not_sent").asLong(),
          i.path("unknown").asLong()));
    }
    if (header.isEmpty()) {
      return Optional.empty(); // a plain records file: nothing says the run was cut short
    }
    long cancelled = records.stream().filter(r -> r.failure().map(f -> f.category() == ErrorCategory.CANCELLED)
        .orElse(false)).count();
    long notSent = records.stream().filter(r -> r.failure().map(f -> f.category() == ErrorCategory.NOT_SENT)
        .orElse(false)).count();
    return Optional.of(new Interruption("the process died before the run ended (no end line in its journal)",
        startedAt.plusNanos(lastEnd), lastEnd, records.size() - cancelled - notSent, cancelled, notSent,
        unknownCount()));
  }

  private static ClientHealth health(JsonNode h) {
    HealthVerdict verdict;
    try {
      verdict = HealthVerdict.valueOf(h.path("verdict").asText());
    } catch (IllegalArgumentException e) {
      return ClientHealth.UNMEASURED;
    }
    List<String> reasons = new ArrayList<>();
    h.path("reasons").forEach(r -> reasons.add(r.asText()));
    if (verdict.isWarning() && reasons.isEmpty()) {
      reasons.add("judged " + verdict + " by the run (its reasons were not kept)");
    }
    return new ClientHealth(verdict, reasons, Math.max(0, h.path("floor_ns").asLong()), Optional.empty());
  }

  private static RunEnvironment environment(JsonNode e) {
    return new RunEnvironment(e.path("java_version").asText("?"), e.path("java_vendor").asText("?"),
        e.path("os_name").asText("?"), e.path("os_arch").asText("?"), e.path("available_processors").asInt(),
        e.path("max_heap_bytes").asLong(), e.path("virtual_threads").asBoolean());
  }

  @Override
  public String toString() {
    return "Journal[" + file + ", " + records.size() + " records" + (complete() ? "" : ", never ended")
        + (unreadableLines > 0 ? ", " + unreadableLines + " unreadable lines" : "") + "]";
  }
}
