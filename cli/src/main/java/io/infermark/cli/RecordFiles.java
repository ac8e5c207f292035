package io.infermark.cli;

import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.ScheduleStats;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.metrics.report.RecordsJsonl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.OptionalDouble;

/**
 * Reads a run back from its records file ({@code .records.jsonl}, as {@code bench} writes it); given a
 * result JSON ({@code name.json} or {@code name.infermark.json}) it reads the records file beside it.
 * The rebuilt run's client health is unmeasured and its load is unknown (described as the records
 * count); its duration runs from the origin to the end of the last request.
 */
final class RecordFiles {

  private RecordFiles() {}

  /** The records file a path names, directly or as the sibling of a result JSON. */
  static Path recordsFile(Path given) {
    String name = given.getFileName().toString();
    if (name.endsWith(".jsonl")) {
      return given;
    }
    String stem = name.endsWith(".infermark.json") ? name.substring(0, name.length() - ".infermark.json".length())
        : name.endsWith(".json") ? name.substring(0, name.length() - ".json".length()) : name;
    Path sibling = given.resolveSibling(stem + ".records.jsonl");
    if (Files.isReadable(sibling)) {
      return sibling;
    }
    throw new IllegalArgumentException(given + " is not a records file (.jsonl) and has no " + sibling.getFileName()
        + " beside it; bench writes one unless --no-records");
  }

  /** The run the file holds. */
  static RunResult read(Path given) {
    Path file = recordsFile(given);
    if (!Files.isReadable(file)) {
      throw new IllegalArgumentException(file + " is not a readable file");
    }
    List<RequestRecord> records = RecordsJsonl.read(file);
    if (records.isEmpty()) {
      throw new IllegalArgumentException(file + " holds no records");
    }
    long duration = 0;
    for (RequestRecord r : records) {
      duration = Math.max(duration, r.wasSent() ? r.sendNanos() + r.endOffsetNanos() : r.intendedNanos());
    }
    return new RunResult(records, true, Instant.EPOCH, 0, duration, "records from " + file.getFileName(),
        LoadProfile.concurrency(1).requests(records.size()), GenerationParams.defaults(), 0,
        RunEnvironment.current(false), ScheduleStats.of(records, OptionalDouble.empty()));
  }

  /** A short label for a file: its name without the records suffix. */
  static String label(Path given) {
    String n = given.getFileName().toString();
    for (String suffix : new String[] {".records.jsonl", ".jsonl", ".infermark.json", ".json"}) {
      if (n.endsWith(suffix)) {
        return n.substring(0, n.length() - suffix.length());
      }
    }
    return n;
  }
}
