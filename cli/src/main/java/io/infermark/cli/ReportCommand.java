package io.infermark.cli;

import io.infermark.core.RunResult;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.report.ConsoleTable;
import io.infermark.metrics.report.HtmlReport;
import io.infermark.metrics.report.RunComparison;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code infermark report}: an HTML report of a run from its records and its own facts (start, load, client
 * health: the {@code .infermark.json} beside them), and with {@code --compare} the differences of its
 * percentiles from a baseline run with 95 % intervals, printed and written as an HTML comparison page.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = {"Render a run's HTML report from its records (.records.jsonl, or the result JSON beside it) and "
        + "the facts of its .infermark.json (start, load, client health); with --compare, print how its percentiles "
        + "differ from a baseline run's and write the comparison page (overlaid CDFs and histograms, the "
        + "differences with their intervals, the verdict)."})
final class ReportCommand implements Callable<Integer> {

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "RUN", description = "The run's records file or result JSON.")
  Path run;

  @Option(names = "--compare", paramLabel = "BASELINE", description = "A baseline run to compare RUN with.")
  Path baseline;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE.html", description = "The HTML file (default: RUN's name + .html).")
  Path output;

  @Option(names = "--title", description = "The report's title (default: the run's name).")
  String title;

  @Option(names = "--compare-output", paramLabel = "FILE.html",
      description = "The comparison page with --compare (default: RUN's name + -vs- + BASELINE's name + .html).")
  Path compareOutput;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    RunResult result = RunFacts.attach(run, RecordFiles.read(run));
    RunSummary summary = RunSummary.of(result);
    out.println(ConsoleTable.render(summary));
    Path html = output != null ? output : run.resolveSibling(RecordFiles.label(run) + ".html");
    HtmlReport.builder(result).title(title != null ? title : RecordFiles.label(run)).build().write(html);
    out.println("Wrote " + html);
    if (baseline != null) {
      RunSummary base = RunSummary.of(RunFacts.attach(baseline, RecordFiles.read(baseline)));
      RunComparison c = RunComparison.of(RecordFiles.label(baseline), base, RecordFiles.label(run), summary);
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
      out.println("Wrote " + ReportPages.comparisonPage(c, base, summary, page) + " (comparison page)");
    }
    out.flush();
    return Infermark.OK;
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
