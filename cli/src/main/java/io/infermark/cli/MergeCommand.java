package io.infermark.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.sweep.ShardMerge;
import io.infermark.metrics.journal.Journal;
import io.infermark.metrics.journal.RecordsJournal;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code infermark merge}: makes the shards of one schedule ({@code bench --shard-index I --shard-count N})
 * one run with {@code core.sweep.ShardMerge}, then prints and writes it as {@code bench} does for a single
 * run, and judges the gates the shards were given on the whole run.
 *
 * <p>A shard is found by its facts file or, when it never got to write one (evicted, killed), by its
 * records journal alone. A shard that was interrupted, or that left only its journal, is partial: the merge
 * refuses it, naming the shard and how many of its records exist, unless {@code --allow-partial}, which
 * merges what exists and marks the merged run interrupted.
 */
@Command(name = "merge", mixinStandardHelpOptions = true,
    description = {"Merge the shards of one schedule (bench --shard-index/--shard-count) into one run: reads every "
        + ShardFile.GLOB + " and its records in DIR (or a shard's records journal alone, when its process died before "
        + "writing the facts), checks that they are all N shards of the same settings, and prints and writes the "
        + "merged run as bench does (vLLM's JSON, infermark's report, the records).",
        "Gates given to the shards (--slo, --max-error-rate, --min-goodput-ratio) are judged on the merged run.",
        "A shard that was interrupted (SIGINT/SIGTERM, eviction) or left only its journal is refused unless "
            + "--allow-partial, which merges what it measured and marks the merged run interrupted."},
    footer = {"", "Example:", "  infermark merge /results", "  infermark merge --allow-partial /results",
        "", "Exit codes: 0 ok, 1 a gate failed, 2 the shard files are missing, repeated, partial or disagree, 3 a file "
        + "could not be read or written."})
final class MergeCommand implements Callable<Integer> {

  private static final Pattern JOURNAL_NAME = Pattern.compile("(.+)\\.shard-(\\d+)-of-(\\d+)\\.records\\.jsonl");

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The directory the shards wrote to (their --result-dir).")
  Path dir;

  @Option(names = "--result-dir", paramLabel = "DIR", description = "Where to write the merged run (default: DIR).")
  Path resultDir;

  @Option(names = "--result-filename", paramLabel = "NAME",
      description = "The merged vLLM result file name (default: the shards' --result-filename, else vLLM's naming).")
  String resultFilename;

  @Option(names = "--allow-partial",
      description = "Merge shards that were interrupted or left only their records journal; the merged run is marked "
          + "interrupted and its outputs say which shards were partial.")
  boolean allowPartial;

  /** One shard as found in the directory: its settings, its journal, and its facts file if it wrote one. */
  record Shard(int index, int count, String version, SortedMap<String, List<String>> settings, Path records,
      Optional<ShardFile.Facts> facts, Journal journal) {

    /** Why this shard is partial, or empty when it ran to its end and wrote everything. */
    Optional<String> partial() {
      Optional<String> interrupted = facts.flatMap(ShardFile.Facts::interruption).map(i -> "was interrupted ("
          + i.reason() + ")");
      if (interrupted.isPresent()) {
        return interrupted;
      }
      if (facts.isEmpty()) {
        return Optional.of(journal.complete() ? "wrote no facts file (only its records journal)"
            : "never ended (its journal has no end line: the process was killed, evicted or crashed)");
      }
      return Optional.empty();
    }

    String name() {
      return "shard " + index + " of " + count;
    }

    /** The file that stands for the shard in messages: its facts file, or its journal when it has none. */
    Path file() {
      return facts.map(ShardFile.Facts::file).orElse(records);
    }
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<Shard> shards = discover(dir);
    requireOneSchedule(shards);
    requireEveryShard(shards);
    List<Shard> partial = shards.stream().filter(s -> s.partial().isPresent()).toList();
    if (!partial.isEmpty() && !allowPartial) {
      List<String> why = new ArrayList<>();
      for (Shard s : partial) {
        why.add(s.name() + " " + s.partial().get() + ": " + s.journal().records().size() + " of its "
            + s.journal().plannedRequests().stream().mapToObj(Long::toString).findFirst().orElse("?")
            + " records exist in " + s.records().getFileName());
      }
      throw new IllegalArgumentException(String.join("; ", why) + ". Rerun " + (partial.size() == 1 ? "that shard"
          : "those shards") + ", or merge what exists with --allow-partial (the merged run is then marked interrupted)");
    }
    Shard first = shards.get(0);
    BenchCommand bench = BenchCommand.parse(first.settings(), "the shards' settings");
    double rate = BenchCommand.parseRate(bench.requestRate);
    LoadProfile whole = bench.load(rate);
    List<RunResult> results = new ArrayList<>();
    for (Shard s : shards) {
      s.journal().warnings().forEach(w -> err.println("WARNING " + s.name() + ": " + w));
      RunResult r = s.journal().toRunResult(whole.shard(s.index(), s.count()), bench.workload.params());
      if (s.facts().isPresent()) {
        ShardFile.Facts f = s.facts().get();
        r = new RunResult(r.records(), true, f.startedAt(), 0, f.durationNanos(), f.target(), r.load(), r.params(),
            f.promptCount(), f.environment(), r.schedule(), List.of(), f.health(), f.insecureTls(),
            r.interruption().or(f::interruption));
      }
      results.add(r);
    }
    err.flush();
    RunResult merged = ShardMerge.merge(results);
    out.printf(Locale.ROOT, "infermark merge: %d shards of %s, %d records, started %s%s%n", results.size(),
        whole, merged.records().size(), merged.startedAt(),
        partial.isEmpty() ? "" : ", PARTIAL (" + partial.stream().map(Shard::name).reduce((a, b) -> a + ", " + b)
            .orElse("") + ")");
    bench.resultDir = resultDir != null ? resultDir : dir;
    if (resultFilename != null) {
      bench.resultFilename = resultFilename;
    }
    var options = bench.vllmOptions(rate, Optional.of(LocalDateTime.ofInstant(merged.startedAt(), ZoneOffset.UTC)));
    BenchOutputs outputsOf = new BenchOutputs(bench);
    return outputsOf.report(out, err, merged, options, outputsOf.paths(options, false), Optional.empty(),
        new OutputFiles(), null);
  }

  /** Every shard in a directory: by its facts file, or by its journal when it has none. */
  static List<Shard> discover(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException(dir + " is not a directory; give the --result-dir the shards wrote to");
    }
    List<Shard> shards = new ArrayList<>();
    List<Path> factsFiles = new ArrayList<>();
    try (var stream = Files.newDirectoryStream(dir, ShardFile.GLOB)) {
      stream.forEach(factsFiles::add);
    } catch (IOException ex) {
      throw new CliException(Infermark.FAILED, "cannot list " + dir + ": " + OutputFiles.cause(ex));
    }
    Collections.sort(factsFiles);
    List<Path> covered = new ArrayList<>();
    for (Path f : factsFiles) {
      ShardFile.Facts facts = ShardFile.read(f);
      if (!Files.isReadable(facts.records())) {
        throw new CliException(Infermark.FAILED, f.getFileName() + " names the records file " + facts.records()
            + ", which is not readable");
      }
      covered.add(facts.records().toAbsolutePath().normalize());
      shards.add(new Shard(facts.index(), facts.count(), facts.version(), facts.settings(), facts.records(),
          Optional.of(facts), Journal.read(facts.records())));
    }
    List<Path> journals = new ArrayList<>();
    try (var stream = Files.newDirectoryStream(dir, "*.shard-*-of-*" + RecordsJournal.SUFFIX)) {
      stream.forEach(journals::add);
    } catch (IOException ex) {
      throw new CliException(Infermark.FAILED, "cannot list " + dir + ": " + OutputFiles.cause(ex));
    }
    Collections.sort(journals);
    for (Path j : journals) {
      if (covered.contains(j.toAbsolutePath().normalize())) {
        continue;
      }
      Matcher m = JOURNAL_NAME.matcher(j.getFileName().toString());
      if (!m.matches()) {
        continue;
      }
      Journal journal = Journal.read(j);
      JsonNode context = journal.context().orElseThrow(() -> new IllegalArgumentException(j.getFileName()
          + " has no facts file beside it and its journal has no bench settings in its header; it cannot be merged"));
      shards.add(new Shard(context.path("shard_index").asInt(Integer.parseInt(m.group(2))),
          context.path("shard_count").asInt(Integer.parseInt(m.group(3))),
          context.path("infermark_version").asText("unknown"), settings(context, j), j, Optional.empty(), journal));
    }
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("no shard files (" + ShardFile.GLOB + ", or their records journals) in " + dir
          + "; run bench with --shard-index/--shard-count and --result-dir " + dir + " first");
    }
    shards.sort(java.util.Comparator.comparingInt(Shard::index));
    return shards;
  }

  /** The bench settings a journal's header keeps. */
  static SortedMap<String, List<String>> settings(JsonNode context, Path file) {
    JsonNode node = context.get("settings");
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException(file.getFileName() + "'s header has no bench settings");
    }
    SortedMap<String, List<String>> settings = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      List<String> values = new ArrayList<>();
      e.getValue().forEach(v -> values.add(v.asText()));
      settings.put(e.getKey(), List.copyOf(values));
    }
    return Collections.unmodifiableSortedMap(settings);
  }

  /** Refuses shards of different schedules or settings, naming the first difference. */
  static void requireOneSchedule(List<Shard> shards) {
    Shard first = shards.get(0);
    for (Shard s : shards.subList(1, shards.size())) {
      if (s.count() != first.count()) {
        throw new IllegalArgumentException(String.format(Locale.ROOT,
            "%s is shard %d of %d but %s is shard %d of %d: merge only the shards of one run (one --shard-count)",
            s.file().getFileName(), s.index(), s.count(), first.file().getFileName(), first.index(),
            first.count()));
      }
      if (!s.version().equals(first.version())) {
        throw new IllegalArgumentException(s.file().getFileName() + " was written by " + s.version() + " but "
            + first.file().getFileName() + " by " + first.version() + ": run every shard with the same infermark");
      }
      if (!s.settings().equals(first.settings())) {
        throw new IllegalArgumentException(s.file().getFileName() + " and " + first.file().getFileName()
            + " were run with different settings (" + difference(first.settings(), s.settings())
            + "): their schedules are not shards of one run");
      }
    }
  }

  /** Refuses a missing or repeated shard, naming it. */
  private static void requireEveryShard(List<Shard> shards) {
    int count = shards.get(0).count();
    TreeSet<Integer> seen = new TreeSet<>();
    for (Shard s : shards) {
      if (!seen.add(s.index())) {
        throw new IllegalArgumentException("shard " + s.index() + " of " + count + " appears twice in the directory");
      }
    }
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      if (!seen.contains(i)) {
        missing.add(i);
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException("expected " + count + " shards, got " + seen.size() + " (missing " + missing
          + "): neither facts file nor records journal of " + (missing.size() == 1 ? "that shard is" : "those shards are")
          + " in the directory; copy them there, or rerun the missing shards");
    }
  }

  private static String difference(SortedMap<String, List<String>> a, SortedMap<String, List<String>> b) {
    TreeSet<String> names = new TreeSet<>(a.keySet());
    names.addAll(b.keySet());
    for (String n : names) {
      if (!Objects.equals(a.get(n), b.get(n))) {
        return n + " " + text(a.get(n)) + " vs " + text(b.get(n));
      }
    }
    return "none";
  }

  private static String text(List<String> values) {
    return values == null ? "(not given)" : values.isEmpty() ? "(set)" : String.join(" ", values);
  }
}
