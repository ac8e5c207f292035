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
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Example 01, benchmark an endpoint: open-loop Poisson load against an OpenAI-compatible chat endpoint,
 * the summary table and SLO verdicts on the console, a JSON and an HTML report on disk.
 *
 * <p>Run it with {@code java -cp examples/target/infermark-quickstart.jar io.infermark.examples.E01BenchmarkAnEndpoint
 * [BASE_URL MODEL] [OUT_DIR]}, e.g. {@code http://localhost:8000/v1 meta-llama/Llama-3.1-8B-Instruct}; without a
 * URL it starts the embedded simulator (an 8B model on one H200). A bearer token is read from the environment
 * variable {@code API_KEY}. Reports go to {@code OUT_DIR} (default {@code target/e01}).
 */
public final class E01BenchmarkAnEndpoint {

  /** Measured requests of the run. */
  static final int REQUESTS = 120;
  /** Requests sent first and left out of the statistics. */
  static final int WARMUP = 10;
  /** Output tokens per request, exact ({@code ignore_eos}). */
  static final int OUTPUT_TOKENS = 64;

  private E01BenchmarkAnEndpoint() {}

  /** Runs the example; see the class comment for the arguments. */
  public static void main(String[] args) throws IOException {
    boolean external = args.length >= 2 && args[0].startsWith("http");
    Path out = Path.of(args.length > (external ? 2 : 0) ? args[external ? 2 : 0] : "target/e01");
    if (external) {
      run(args[0], args[1], out, System.out);
      return;
    }
    if (System.getProperty(ExplainTail.SIMULATOR_LOG_LEVEL) == null) {   // the simulator's start and stop lines
      System.setProperty(ExplainTail.SIMULATOR_LOG_LEVEL, "warn");
    }
    SimulatorConfig config = SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).seed(1).build();
    try (Simulator sim = Simulator.start(config)) {
      run(sim.baseUrl() + "/v1", sim.config().model(), out, System.out);
    }
  }

  /**
   * Benchmarks {@code model} at {@code baseUrl} (an OpenAI-compatible base URL ending in {@code /v1}), prints
   * the summary to {@code console} and writes {@code report.json} and {@code report.html} into {@code outDir}.
   */
  static RunSummary run(String baseUrl, String model, Path outDir, PrintStream console) throws IOException {
    List<Prompt> prompts = List.of(
        Prompt.user("Explain continuous batching in two sentences."),
        Prompt.user("Write a haiku about tail latency."),
        Prompt.user("List three causes of a slow first token."));
    try (OpenAiTarget target = OpenAiTarget.chat(baseUrl, model)
        .apiKey(System.getenv().getOrDefault("API_KEY", ""))   // never logged, recorded or reported
        .build()) {
      // Open loop: requests leave on a precomputed Poisson schedule (40/s on average) whatever the server does,
      // so a slow server shows as latency measured from the intended send, not as a lower rate.
      RunResult run = Benchmark.target(target)
          .prompts(prompts)
          .params(GenerationParams.builder().maxTokens(OUTPUT_TOKENS).ignoreEos(true).build())
          .load(LoadProfile.poisson(40).requests(REQUESTS).warmupRequests(WARMUP).seed(42))
          .run();

      RunSummary summary = RunSummary.of(run);
      SloReport slo = SloPresets.chat().evaluate(run, summary);   // TTFT P99 <= 200 ms, ITL P99 <= 50 ms
      console.println(ConsoleTable.render(summary));
      console.println(slo);
      console.println("schedule: " + run.schedule());            // requested vs achieved rate, send lag
      console.println("client: " + run.clientHealth());          // could the client keep up?

      Files.createDirectories(outDir);
      JsonReport.write(summary, JsonReport.Extras.NONE.withSlo(slo), outDir.resolve("report.json"));
      HtmlReport.builder(run).title("E01 " + model).slo(slo).build().write(outDir.resolve("report.html"));
      console.println("Reports written to " + outDir.toAbsolutePath());
      return summary;
    }
  }
}
