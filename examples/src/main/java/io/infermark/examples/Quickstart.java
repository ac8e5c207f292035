package io.infermark.examples;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.report.ConsoleTable;
import io.infermark.metrics.report.HtmlReport;
import io.infermark.metrics.report.JsonReport;
import io.infermark.metrics.slo.SloPresets;
import io.infermark.metrics.slo.SloReport;
import io.infermark.metrics.timeseries.TimeSeries;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The quickstart: starts the embedded simulator with its continuous-batching engine shaped like an
 * 8B model on one H200, sends 200 streamed chat requests at concurrency 16 (after 16 warmup
 * requests), prints the summary table and the chat SLO verdicts, and writes
 * {@code target/infermark-report.json} and {@code target/infermark-report.html} beside it.
 *
 * <p>Run it with {@code java -jar examples/target/infermark-quickstart.jar [report path]}; {@code --help}
 * prints the usage.
 */
public final class Quickstart {

  /** What {@code --help} prints. */
  static final String USAGE = String.join("\n",
      "usage: java -jar infermark-quickstart.jar [REPORT.json]",
      "Starts the embedded LLM serving simulator, sends 200 streamed chat requests at concurrency 16 (after 16",
      "warmup requests), prints the summary and the chat SLO verdicts, and writes REPORT.json and REPORT.html",
      "(default: target/infermark-report.json and .html).",
      "The numbered examples: java -cp infermark-quickstart.jar io.infermark.examples.E01BenchmarkAnEndpoint (see",
      "docs/examples.md); the command: java -cp infermark-quickstart.jar io.infermark.cli.Infermark --help");

  private Quickstart() {}

  /** Runs the demo; the optional argument is where to write the JSON report (the HTML goes beside it). */
  public static void main(String[] args) throws Exception {
    int code = usage(args, System.out, System.err);
    if (code >= 0) {
      System.exit(code);
      return;
    }
    run(Path.of(args.length > 0 ? args[0] : "target/infermark-report.json"));
  }

  /**
   * Handles the arguments that are not a report path: {@code -h}/{@code --help} prints the usage (0), any
   * other option or more than one argument is an error (2); -1 when the demo should run.
   */
  static int usage(String[] args, java.io.PrintStream out, java.io.PrintStream err) {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      out.println(USAGE);
      return 0;
    }
    if (args.length > 1 || (args.length == 1 && args[0].startsWith("-"))) {
      err.println("infermark-quickstart: unexpected " + String.join(" ", args) + "; the only argument is the "
          + "report path");
      err.println(USAGE);
      return 2;
    }
    return -1;
  }

  private static void run(Path report) throws Exception {
    SimulatorConfig config = SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).seed(42).build();
    List<Prompt> prompts = List.of(
        Prompt.user("Explain continuous batching in two sentences.").withTag("scenario", "explain"),
        Prompt.user("Write a haiku about tail latency.").withTag("scenario", "poem"),
        Prompt.user("List three causes of a slow first token.").withTag("scenario", "list"));

    try (Simulator simulator = Simulator.start(config);
        OpenAiTarget target = OpenAiTarget.chat(simulator.baseUrl() + "/v1", config.model()).build()) {
      RunResult result = Benchmark.target(target)
          .prompts(prompts)
          .params(GenerationParams.builder().maxTokens(64).ignoreEos(true).build())
          .load(LoadProfile.concurrency(16).requests(200).warmupRequests(16))
          .captureText(true)
          .run();

      RunSummary summary = RunSummary.of(result);
      SloReport slo = SloPresets.chat().evaluate(result, summary);
      System.out.println(ConsoleTable.render(summary));
      System.out.println(slo);
      Path parent = report.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      JsonReport.write(summary, JsonReport.Extras.NONE.withSlo(slo).withSeries(TimeSeries.of(result)), report);
      Path html = report.resolveSibling(report.getFileName().toString().replaceFirst("\\.json$", "") + ".html");
      HtmlReport.builder(result).title("infermark quickstart").slo(slo).build().write(html);
      System.out.println("Reports written to " + report.toAbsolutePath() + " and " + html.toAbsolutePath());
    }
  }
}
