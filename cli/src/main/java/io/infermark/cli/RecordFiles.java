package io.infermark.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.metrics.journal.Journal;
import io.infermark.metrics.journal.RecordsJournal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Reads a run back from its records file ({@code .records.jsonl}, the journal {@code bench} writes as the
 * run goes); given a result JSON ({@code name.json} or {@code name.infermark.json}) it reads the records file
 * beside it. A journal written by {@code bench} keeps the command's settings in its header, so the run comes
 * back with its own load profile, parameters, start, target, client health and interruption; a plain records
 * file (or a library's journal) comes back with what its lines say, its load approximated
 * ({@link Journal#toRunResult()}).
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
    Path sibling = given.resolveSibling(stem + RecordsJournal.SUFFIX);
    if (Files.isReadable(sibling)) {
      return sibling;
    }
    throw new IllegalArgumentException(given + " is not a records file (.jsonl) and has no " + sibling.getFileName()
        + " beside it; bench writes one unless --no-records");
  }

  /** A journal read back, with the bench command its header keeps (if a bench run wrote it). */
  record Read(Journal journal, Optional<BenchCommand> bench, RunResult run) {}

  /** The run the file holds. */
  static RunResult read(Path given) {
    return readAll(given).run();
  }

  /** The run the file holds, with its journal and bench settings. */
  static Read readAll(Path given) {
    Path file = recordsFile(given);
    if (!Files.isReadable(file)) {
      throw new IllegalArgumentException(file + " is not a readable file");
    }
    Journal journal = Journal.read(file);
    Optional<JsonNode> context = journal.context().filter(c -> "bench".equals(c.path("command").asText()));
    if (context.isEmpty()) {
      return new Read(journal, Optional.empty(), journal.toRunResult());
    }
    BenchCommand bench = BenchCommand.parse(MergeCommand.settings(context.get(), file), "the settings in "
        + file.getFileName());
    LoadProfile load = bench.load(BenchCommand.parseRate(bench.requestRate));
    int count = context.get().path("shard_count").asInt(1);
    if (count > 1) {
      load = load.shard(context.get().path("shard_index").asInt(), count);
    }
    return new Read(journal, Optional.of(bench), journal.toRunResult(load, bench.workload.params()));
  }

  /** A short label for a file: its name without the records suffix. */
  static String label(Path given) {
    String n = given.getFileName().toString();
    for (String suffix : List.of(RecordsJournal.SUFFIX, ".jsonl", ".infermark.json", ".json")) {
      if (n.endsWith(suffix)) {
        return n.substring(0, n.length() - suffix.length());
      }
    }
    return n;
  }
}
