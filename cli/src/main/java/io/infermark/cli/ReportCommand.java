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
 * {@code infermark report}: an HTML report of a run from its records, and with {@code --compare} the
 * differences of its percentiles from a baseline run with 95 % intervals.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = {"Render a run's HTML report from its records (.records.jsonl, or the result JSON beside it); "
        + "with --compare, print how its percentiles differ from a baseline run's."})
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

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    RunResult result = RecordFiles.read(run);
    RunSummary summary = RunSummary.of(result);
    out.println(ConsoleTable.render(summary));
    Path html = output != null ? output : run.resolveSibling(RecordFiles.label(run) + ".html");
    HtmlReport.builder(result).title(title != null ? title : RecordFiles.label(run)).build().write(html);
    out.println("Wrote " + html);
    if (baseline != null) {
      RunSummary base = RunSummary.of(RecordFiles.read(baseline));
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
    }
    out.flush();
    return Infermark.OK;
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
