package io.infermark.cli;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.journal.RecordsJournal;
import io.infermark.metrics.report.HtmlReport;
import io.infermark.metrics.report.JsonReport;
import io.infermark.metrics.report.VllmResultJson;
import io.infermark.metrics.report.VllmResultOptions;
import io.infermark.metrics.timeseries.TimeSeries;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a {@code bench} run leaves behind: its summaries on the console, its files (vLLM's result, infermark's report,
 * the HTML pages, Locust's CSV files, the records journal), a shard's facts, and the exit code outputs and
 * interruptions call for. {@code merge} and {@code report} use it for the runs they rebuild.
 */
final class BenchOutputs {

  private final BenchCommand bench;

  BenchOutputs(BenchCommand bench) {
    this.bench = bench;
  }

  /** Where a run's outputs go: vLLM's result, infermark's report, the records journal. */
  record OutputPaths(Path vllm, Path report, Path records) {}

  /** The output files of this command line (a shard's records and facts are named after its shard). */
  OutputPaths paths(VllmResultOptions vllmOptions) {
    return paths(vllmOptions, bench.shard.sharded());
  }

  /** The output files of this command line's whole run, or, {@code asShard}, of its shard. */
  OutputPaths paths(VllmResultOptions vllmOptions, boolean asShard) {
    Path dir = bench.resultDir != null ? bench.resultDir : Path.of("");
    if (asShard) {
      String stem = bench.shard.fileStem(BenchCommand.stem(bench.resultFilename != null ? bench.resultFilename : "infermark"));
      return new OutputPaths(dir.resolve(stem + ".json"), dir.resolve(stem + ".infermark.json"),
          dir.resolve(stem + RecordsJournal.SUFFIX));
    }
    String name = bench.resultFilename != null ? bench.resultFilename : vllmOptions.fileName();
    String stem = BenchCommand.stem(name);
    return new OutputPaths(dir.resolve(name), dir.resolve(stem + ".infermark.json"), dir.resolve(stem + RecordsJournal.SUFFIX));
  }

  /**
   * What a journal's header keeps of this command, so that {@code report} and {@code merge} can rebuild every
   * output from the journal alone: the bench settings (no secrets: see {@link ShardFile#settings}), the shard,
   * the vLLM result's file name and the version.
   */
  Map<String, Object> journalContext(VllmResultOptions vllmOptions, boolean asShard) {
    Map<String, Object> c = new java.util.LinkedHashMap<>();
    c.put("command", "bench");
    c.put("infermark_version", new Infermark.Version().getVersion()[0]);
    Map<String, Object> settings = new java.util.LinkedHashMap<>();
    ShardFile.settings(bench.spec.commandLine().getParseResult()).forEach((k, v) -> settings.put(k, List.copyOf(v)));
    c.put("settings", settings);
    c.put("shard_index", asShard ? bench.shard.index() : 0);
    c.put("shard_count", asShard ? bench.shard.count() : 1);
    c.put("vllm_result_file", paths(vllmOptions, false).vllm().getFileName().toString());
    c.put("vllm_date", vllmOptions.date().toString());
    return c;
  }

  /**
   * Opens the records journal before the first request; if it cannot be created the run goes on (its
   * summary is still printed) and the failure is an output failure, so the command exits 3.
   */
  Optional<RecordsJournal> openJournal(Path file, VllmResultOptions vllmOptions, OutputFiles outputs,
      PrintWriter err) {
    if (bench.noSave || bench.noRecords) {
      return Optional.empty();
    }
    try {
      RecordsJournal.Builder b = RecordsJournal.builder(file);
      journalContext(vllmOptions, bench.shard.sharded()).forEach(b::context);
      return Optional.of(b.open());
    } catch (UncheckedIOException e) {
      String cause = OutputFiles.cause(e);
      outputs.failed(file, cause);
      err.println("WARNING cannot create the records journal " + file + ": " + cause + "; the run goes on, but what "
          + "it measures is kept only in memory until it ends");
      err.flush();
      return Optional.empty();
    }
  }

  /**
   * Prints a run's summaries, writes its files unless {@code --no-save}, and returns the exit code: 3 if an
   * output could not be written, 130 or 143 if a signal interrupted the run, 1 if a gate failed; used by
   * {@code bench}, by {@code merge} for the merged run and by {@code report} for a run rebuilt from its journal
   * ({@code signals} null: their runs' interruptions are not this process's, so they do not set the exit code).
   *
   * @throws CliException if every request of a run that was not interrupted failed
   */
  int report(PrintWriter out, PrintWriter err, RunResult run, VllmResultOptions vllmOptions, OutputPaths files,
      Optional<RecordsJournal> journal, OutputFiles outputs, StopSignals signals) {
    RunResult result = bench.coldStart.mark(run); // cold records tagged with the reason (--cold-start-idle-gap)
    RunSummary plain = bench.coldStart.summary(result);
    RunSummary summary = bench.promptReuse.map(r -> plain.withPromptReuse(result.records(), r)).orElse(plain);
    Map<String, Object> vllm = VllmResultJson.result(result, vllmOptions);
    SloOptions.Outcome outcome = bench.slo.judge(result, summary);
    Summaries.printVllm(out, vllm, vllmOptions);
    Summaries.printInfermark(out, result, summary, outcome);
    bench.scrapeReport.ifPresent(r -> {
      for (String line : io.infermark.metrics.report.ConsoleTable.serverMetrics(r)) {
        out.println(line);
      }
      out.flush();
    });
    if (!bench.noSave) {
      save(out, result, summary, vllmOptions, outcome, files, journal, outputs);
    }
    int code = exitCode(err, result, outputs, signals);
    if (code != Infermark.OK) {
      return code;
    }
    requireASuccess(result, summary);
    if (!outcome.passed()) {
      out.println("GATE FAILED: exit code " + Infermark.GATE_FAILED);
      return Infermark.GATE_FAILED;
    }
    return Infermark.OK;
  }

  /**
   * The exit code that outputs and interruptions call for, or OK: 3 when an output could not be written (one
   * line says which and why), else, for a run made by this process ({@code signals} given), 130/143 when a
   * signal (or another stop) interrupted it.
   */
  static int exitCode(PrintWriter err, RunResult result, OutputFiles outputs, StopSignals signals) {
    if (outputs.anyFailed()) {
      err.println("infermark: " + outputs.failureLine() + ": exit code " + Infermark.FAILED);
      err.flush();
      return Infermark.FAILED;
    }
    if (result.interrupted() && signals != null) {
      int code = signals.exitCode() != 0 ? signals.exitCode() : Infermark.INTERRUPTED;
      err.println("infermark: the run was " + result.interruption().orElseThrow().summary() + "; every output is "
          + "marked interrupted: exit code " + code);
      err.flush();
      return code;
    }
    return Infermark.OK;
  }

  /**
   * A shard's end: its own summary (gates are judged by {@code merge} on the whole run), its journal as its
   * records, and its run facts for the merge.
   */
  int finishShard(PrintWriter out, PrintWriter err, RunResult result, OutputPaths files,
      Optional<RecordsJournal> journal, OutputFiles outputs, StopSignals signals) {
    RunSummary summary = RunSummary.of(result);
    Summaries.printInfermark(out, result, summary, new SloOptions().judge(result, summary));
    Path dir = bench.resultDir != null ? bench.resultDir : Path.of("");
    keepRecords(result, files.records(), journal, outputs, journalContext(bench.vllmOptions(BenchCommand.parseRate(bench.requestRate),
        Optional.empty()), true));
    Path facts = dir.resolve(bench.shard.fileStem(BenchCommand.stem(bench.resultFilename != null ? bench.resultFilename : "infermark")) + ".json");
    ShardFile.write(outputs, facts, bench.shard.index(), bench.shard.count(),
        ShardFile.settings(bench.spec.commandLine().getParseResult()), result, files.records(),
        new Infermark.Version().getVersion()[0]);
    if (outputs.written().contains(facts)) {
      out.println("Wrote shard " + bench.shard.index() + " of " + bench.shard.count() + ": " + facts + " and its records "
          + files.records() + "; when every shard is done: infermark merge " + (bench.resultDir != null ? bench.resultDir : "."));
    }
    int code = exitCode(err, result, outputs, signals);
    if (code != Infermark.OK) {
      return code;
    }
    requireASuccess(result, summary);
    return Infermark.OK;
  }

  /**
   * Makes sure the records file is whole: the journal already is, unless it could not be opened or a write
   * failed (a full disk), in which case the whole journal is written again from memory; if that fails too,
   * what the live journal holds stays, cut at its last whole line.
   */
  static void keepRecords(RunResult result, Path file, Optional<RecordsJournal> journal, OutputFiles outputs,
      Map<String, Object> context) {
    if (journal.isPresent() && journal.get().failure().isEmpty()) {
      return;
    }
    if (outputs.write(file, p -> RecordsJournal.write(result, context, p))) {
      outputs.failures().keySet().stream().filter(file::equals).findAny()
          .ifPresent(f -> outputs.clear(f)); // written whole after all
    }
  }

  private static void requireASuccess(RunResult result, RunSummary summary) {
    if (summary.requests().succeeded() == 0) {
      String first = result.measured().stream().map(RequestRecord::failure).flatMap(Optional::stream).findFirst()
          .map(f -> ": first error " + f).orElse("");
      throw new CliException(Infermark.FAILED, "every request failed" + first);
    }
  }


  private void save(PrintWriter out, RunResult result, RunSummary summary, VllmResultOptions options,
      SloOptions.Outcome outcome, OutputPaths files, Optional<RecordsJournal> journal, OutputFiles outputs) {
    outputs.write(files.vllm(), p -> bench.vllm.writeResult(result, options, p, files.vllm()));
    JsonReport.Extras extras = JsonReport.Extras.NONE.withSeries(TimeSeries.of(result));
    if (bench.scrapeReport.isPresent()) {
      extras = extras.withScrape(bench.scrapeReport.get());
    }
    if (outcome.gates().isPresent()) {
      extras = extras.withSlo(outcome.gates().get());
    }
    JsonReport.Extras finalExtras = extras;
    outputs.write(files.report(), p -> JsonReport.write(summary, finalExtras, p));
    if (!bench.noRecords) {
      // the journal holds the records as they came; marked cold ones are written again, tagged
      keepRecords(result, files.records(), bench.coldStart.given() ? Optional.empty() : journal, outputs,
          journalContext(options, false));
    }
    String stem = BenchCommand.stem(files.vllm().getFileName().toString());
    Path dir = files.vllm().toAbsolutePath().getParent();
    bench.html.file(dir.resolve(stem + ".html")).ifPresent(page -> outputs.write(page, p -> {
      HtmlReport.Builder b = HtmlReport.builder(result, summary).title(stem);
      bench.scrapeReport.ifPresent(b::scrape);
      outcome.gates().ifPresent(b::slo);
      b.build().write(p);
    }));
    bench.locust.csvPrefix(bench.resultDir).ifPresent(prefix -> LocustCsv.write(prefix, result, requestName(),
        bench.userRamp.given() ? Optional.of(bench.userRamp.ramp()) : Optional.empty(), outputs));
    if (bench.vllm.plotTimeline) {
      outputs.write(dir.resolve(stem + ".timeline.html"), p -> java.nio.file.Files.writeString(p,
          io.infermark.metrics.report.TimelineReport.of(result, stem + " timeline", bench.vllm.itlThresholds()).html()));
    }
    List<Path> written = new ArrayList<>(outputs.written());
    if (!bench.noRecords && !outputs.failures().containsKey(files.records()) && !written.contains(files.records())) {
      written.add(files.records()); // the journal, written as the run went
    }
    if (!written.isEmpty()) {
      out.println("Wrote " + written.stream().map(f -> f.equals(files.vllm()) ? f + " (vLLM format)"
          : f.toString().endsWith(".timeline.html") ? f + " (request timeline)"
          : f.toString().endsWith(".html") ? f + " (HTML report)" : f.toString())
          .collect(java.util.stream.Collectors.joining(", ")));
    }
  }

  /** Locust's request name: the URL path requests go to (the target's description for other protocols). */
  private String requestName() {
    String d = bench.target.describe();
    try {
      String path = java.net.URI.create(d).getPath();
      return path == null || path.isEmpty() ? d : path;
    } catch (IllegalArgumentException notAUrl) {
      return d;
    }
  }
}
