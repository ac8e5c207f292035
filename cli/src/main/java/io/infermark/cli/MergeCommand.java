package io.infermark.cli;

import io.infermark.core.RunResult;
import io.infermark.core.ScheduleStats;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.shard.ShardMerge;
import io.infermark.metrics.report.RecordsJsonl;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code infermark merge}: makes the shards of one schedule ({@code bench --shard-index I --shard-count N})
 * one run with {@code core.shard.ShardMerge}, then prints and writes it as {@code bench} does for a single
 * run, and judges the gates the shards were given on the whole run.
 */
@Command(name = "merge", mixinStandardHelpOptions = true,
    description = {"Merge the shards of one schedule (bench --shard-index/--shard-count) into one run: reads every "
        + ShardFile.GLOB + " and its records in DIR, checks that they are all N shards of the same settings, and "
        + "prints and writes the merged run as bench does (vLLM's JSON, infermark's report, the records).",
        "Gates given to the shards (--slo, --max-error-rate, --min-goodput-ratio) are judged on the merged run."},
    footer = {"", "Example:", "  infermark merge /results",
        "", "Exit codes: 0 ok, 1 a gate failed, 2 the shard files are missing, repeated or disagree, 3 a file could "
        + "not be read or written."})
final class MergeCommand implements Callable<Integer> {

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DIR", description = "The directory the shards wrote to (their --result-dir).")
  Path dir;

  @Option(names = "--result-dir", paramLabel = "DIR", description = "Where to write the merged run (default: DIR).")
  Path resultDir;

  @Option(names = "--result-filename", paramLabel = "NAME",
      description = "The merged vLLM result file name (default: the shards' --result-filename, else vLLM's naming).")
  String resultFilename;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    List<ShardFile.Facts> facts = new ArrayList<>();
    for (Path f : ShardFile.list(dir)) {
      facts.add(ShardFile.read(f));
    }
    requireOneSchedule(facts);
    ShardFile.Facts first = facts.get(0);
    BenchCommand bench = parse(first.args());
    double rate = BenchCommand.parseRate(bench.requestRate);
    LoadProfile whole = bench.load(rate);
    List<RunResult> shards = new ArrayList<>();
    for (ShardFile.Facts f : facts) {
      if (!Files.isReadable(f.records())) {
        throw new CliException(Infermark.FAILED, f.file().getFileName() + " names the records file " + f.records()
            + ", which is not readable");
      }
      List<RequestRecord> records = RecordsJsonl.read(f.records());
      LoadProfile load = whole.shard(f.index(), f.count());
      shards.add(new RunResult(records, true, f.startedAt(), 0, f.durationNanos(), f.target(), load,
          bench.workload.params(), f.promptCount(), f.environment(),
          ScheduleStats.of(records, OptionalDouble.of(rate / f.count())), List.of(), f.health(), f.insecureTls()));
    }
    RunResult merged = ShardMerge.merge(shards);
    out.printf(Locale.ROOT, "infermark merge: %d shards of %s, %d records, started %s%n", shards.size(),
        whole, merged.records().size(), merged.startedAt());
    bench.resultDir = resultDir != null ? resultDir : dir;
    if (resultFilename != null) {
      bench.resultFilename = resultFilename;
    }
    return bench.report(out, merged,
        bench.vllmOptions(rate, Optional.of(LocalDateTime.ofInstant(merged.startedAt(), ZoneOffset.UTC))));
  }

  /** Refuses shards of different schedules or settings, naming the first difference. */
  static void requireOneSchedule(List<ShardFile.Facts> facts) {
    ShardFile.Facts first = facts.get(0);
    for (ShardFile.Facts f : facts.subList(1, facts.size())) {
      if (f.count() != first.count()) {
        throw new IllegalArgumentException(String.format(Locale.ROOT,
            "%s is shard %d of %d but %s is shard %d of %d: merge only the shards of one run (one --shard-count)",
            f.file().getFileName(), f.index(), f.count(), first.file().getFileName(), first.index(), first.count()));
      }
      if (!f.version().equals(first.version())) {
        throw new IllegalArgumentException(f.file().getFileName() + " was written by " + f.version() + " but "
            + first.file().getFileName() + " by " + first.version() + ": run every shard with the same infermark");
      }
      if (!f.settings().equals(first.settings())) {
        throw new IllegalArgumentException(f.file().getFileName() + " and " + first.file().getFileName()
            + " were run with different settings (" + difference(first.settings(), f.settings())
            + "): their schedules are not shards of one run");
      }
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

  /** The shards' bench command, rebuilt from their shared settings with bench's own parser. */
  private BenchCommand parse(List<String> args) {
    BenchCommand bench = new BenchCommand();
    CommandLine cl = new CommandLine(bench);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    try {
      cl.parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException("the shards' settings do not parse as bench options (" + e.getMessage()
          + "); were they written by another infermark version?");
    }
    bench.spec = cl.getCommandSpec();
    return bench;
  }
}
