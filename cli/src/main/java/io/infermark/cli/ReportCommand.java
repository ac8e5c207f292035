package io.infermark.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.infermark.core.RunResult;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.report.ConsoleTable;
import io.infermark.metrics.report.HtmlReport;
import io.infermark.metrics.report.JsonReport;
import io.infermark.metrics.report.RunComparison;
import io.infermark.metrics.report.VllmResultJson;
import io.infermark.metrics.report.VllmResultOptions;
import io.infermark.metrics.timeseries.TimeSeries;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code infermark report}: rebuilds a run's outputs from its records journal (vLLM's result JSON and
 * infermark's JSON report when they are missing, for a run that was killed before writing them, and always
 * the HTML report), and with {@code --compare} the differences of its percentiles from a baseline run with
 * 95 % intervals.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = {"Rebuild a run's outputs from its records journal (.records.jsonl, or the result JSON beside it): "
        + "the HTML report, and vLLM's result JSON and infermark's JSON report where they are missing (a run killed "
        + "before its end, kill -9 included: a cut last line is skipped and counted). With --compare, print how its "
        + "percentiles differ from a baseline run's."},
    footer = {"", "Exit codes: 0 ok, 2 bad flags or not a records file, 3 a file could not be read or written."})
final class ReportCommand implements Callable<Integer> {

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "RUN", description = "The run's records journal or result JSON.")
  Path run;

  @Option(names = "--compare", paramLabel = "BASELINE", description = "A baseline run to compare RUN with.")
  Path baseline;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE.html", description = "The HTML file (default: RUN's name + .html).")
  Path output;

  @Option(names = "--result-dir", paramLabel = "DIR",
      description = "Where rebuilt JSON outputs go (default: beside RUN's records).")
  Path resultDir;

  @Option(names = "--overwrite", description = "Rebuild the JSON outputs even where they exist (default: keep them).")
  boolean overwrite;

  @Option(names = "--title", description = "The report's title (default: the run's name).")
  String title;

  @Option(names = "--compare-output", paramLabel = "FILE.html",
      description = "The comparison page with --compare (default: RUN's name + -vs- + BASELINE's name + .html).")
  Path compareOutput;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    RecordFiles.Read read = RecordFiles.readAll(run);
    read.journal().warnings().forEach(w -> err.println("WARNING " + w));
    err.flush();
    // A journal bench wrote knows its run exactly; other records take the facts of the report beside them.
    RunResult result = read.bench().isPresent() ? read.run() : RunFacts.attach(run, read.run());
    RunSummary summary = RunSummary.of(result);
    out.println(ConsoleTable.render(summary));
    Path records = read.journal().file();
    String label = RecordFiles.label(records);
    Path dir = resultDir != null ? resultDir : records.toAbsolutePath().getParent();
    OutputFiles outputs = new OutputFiles();
    JsonReport.Extras extras = JsonReport.Extras.NONE.withSeries(TimeSeries.of(result));
    if (read.bench().isPresent()) {
      BenchCommand bench = read.bench().get();
      JsonNode context = read.journal().context().orElseThrow();
      LocalDateTime date = parseDate(context.path("vllm_date").asText(""))
          .orElse(LocalDateTime.ofInstant(result.startedAt(), ZoneOffset.UTC));
      VllmResultOptions options = bench.vllmOptions(BenchCommand.parseRate(bench.requestRate), Optional.of(date));
      String name = context.path("vllm_result_file").asText(options.fileName());
      if (context.path("shard_count").asInt(1) <= 1) { // a shard's whole-run results are the merge's
        rebuild(out, outputs, dir.resolve(name), p -> VllmResultJson.write(result, options, p));
      }
      SloOptions.Outcome outcome = bench.slo.judge(result, summary);
      if (outcome.gates().isPresent()) {
        extras = extras.withSlo(outcome.gates().get());
      }
    }
    JsonReport.Extras finalExtras = extras;
    rebuild(out, outputs, dir.resolve(label + ".infermark.json"), p -> JsonReport.write(summary, finalExtras, p));
    Path html = output != null ? output : dir.resolve(label + ".html");
    if (outputs.write(html, p -> HtmlReport.builder(result).title(title != null ? title : label).build().write(p))) {
      out.println("Wrote " + html);
    }
    if (baseline != null) {
      compare(out, summary, outputs);
    }
    out.flush();
    if (outputs.anyFailed()) {
      err.println("infermark: " + outputs.failureLine() + ": exit code " + Infermark.FAILED);
      err.flush();
      return Infermark.FAILED;
    }
    return Infermark.OK;
  }

  /** Writes an output unless it exists (the run's own, richer than a rebuild) and --overwrite was not given. */
  private void rebuild(PrintWriter out, OutputFiles outputs, Path file, OutputFiles.Writer writer) {
    if (Files.exists(file) && !overwrite) {
      out.println("Kept " + file + " (it exists; --overwrite rebuilds it from the records)");
      return;
    }
    if (outputs.write(file, writer)) {
      out.println("Rebuilt " + file);
    }
  }

  private void compare(PrintWriter out, RunSummary summary, OutputFiles outputs) {
    RecordFiles.Read base = RecordFiles.readAll(baseline);
    RunSummary baseSummary = RunSummary.of(base.bench().isPresent() ? base.run() : RunFacts.attach(baseline,
        base.run()));
    RunComparison c = RunComparison.of(RecordFiles.label(baseline), baseSummary, RecordFiles.label(run), summary);
    out.printf(Locale.ROOT, "%nCompared with %s (%.0f%% intervals; '*' = the difference is outside them):%n",
        RecordFiles.label(baseline), c.confidence() * 100);
    out.printf(Locale.ROOT, "  %-20s %12s %12s %12s%n", "metric", "baseline ms", "run ms", "delta ms");
    for (RunComparison.Delta d : c.deltas()) {
      out.printf(Locale.ROOT, "  %-20s %12.2f %12.2f %+12.2f %s%n", d.metric().name() + " p" + trim(d.p() * 100),
          d.baselineMillis().orElse(Double.NaN), d.candidateMillis().orElse(Double.NaN),
          d.deltaMillis().orElse(Double.NaN), d.significant() ? "*" : "");
    }
    c.warnings().forEach(w -> out.println("  WARNING " + w));
    out.println("Verdict: " + c.verdict());
    Path page = compareOutput != null ? compareOutput : run.resolveSibling(RecordFiles.label(run) + "-vs-"
        + RecordFiles.label(baseline) + ".html");
    if (outputs.write(page, p -> java.nio.file.Files.writeString(p,
        io.infermark.metrics.report.ComparisonReport.of(c, baseSummary, summary).html()))) {
      out.println("Wrote " + page + " (comparison page)");
    }
  }

  private static Optional<LocalDateTime> parseDate(String text) {
    try {
      return text.isEmpty() ? Optional.empty() : Optional.of(LocalDateTime.parse(text));
    } catch (java.time.format.DateTimeParseException e) {
      return Optional.empty();
    }
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
