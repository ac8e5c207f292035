package io.infermark.examples;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.perturbation.Dimension;
import io.infermark.perturbation.PerturbationSpace;
import io.infermark.perturbation.Variant;
import io.infermark.perturbation.analysis.LevelTable;
import io.infermark.perturbation.design.Design;
import io.infermark.perturbation.design.Designs;
import io.infermark.perturbation.operator.Noise;
import io.infermark.perturbation.operator.Padding;
import io.infermark.perturbation.operator.Paraphrase;
import io.infermark.perturbation.operator.Typos;
import io.infermark.perturbation.workload.VariantWorkload;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Example 04, an L9 perturbation study: four factors at three levels each (typos, noise, padding to a token
 * length, a paraphrase template) would take 81 variants to cover fully; a Taguchi L9 orthogonal array covers
 * every pair of levels of every two factors with 9. Each of the 9 cells is sent {@value #REPETITIONS} times,
 * interleaved, to the simulator's 8B-on-H200 engine, and the example prints
 *
 * <ul>
 *   <li>a <b>per-cell table</b>: the cell's levels, its requests and failures, the prompt tokens the server
 *       counted, and TTFT and E2E P50;
 *   <li>the <b>main effect</b> of each factor ({@code LevelTable}): each level averaged over the cells that
 *       have it, which the orthogonal array balances.
 * </ul>
 *
 * <p>Padding is the factor that moves the prompt's length (about 15, 420 and 1,680 tokens by the server's
 * count) and with it TTFT (a longer prefill: a few ms at P50 on this engine profile); typos, noise and
 * paraphrases change the words but hardly the length. Tail columns are noisy with 24 requests per level.
 * Against a real model add a validator ({@code LevelTable.of(run, dimension, Validity.of(...))}) to see what
 * each factor does to correctness.
 *
 * <p>Run it with
 * {@code java -cp examples/target/infermark-quickstart.jar io.infermark.examples.E04PerturbationStudy}
 * (a few seconds).
 */
public final class E04PerturbationStudy {

  static final int REPETITIONS = 8;
  static final int OUTPUT_TOKENS = 16;

  private E04PerturbationStudy() {}

  /** What the example found, for its test: the space, the design's variants and the run. */
  record Result(PerturbationSpace space, List<Variant> variants, RunResult run, List<Cell> cells) {}

  /** One row of the per-cell table. */
  record Cell(int variant, int[] levels, int requests, int failed, double meanPromptTokens, double ttftP50Ms,
      double e2eP50Ms) {}

  /** Runs the example. */
  public static void main(String[] args) {
    quietSimulator();
    run(System.out);
  }

  /** The simulator logs each start and stop at INFO; keep the output to what the example teaches. */
  static void quietSimulator() {
    if (System.getProperty(ExplainTail.SIMULATOR_LOG_LEVEL) == null) {
      System.setProperty(ExplainTail.SIMULATOR_LOG_LEVEL, "warn");
    }
  }

  static Result run(PrintStream out) {
    PerturbationSpace space = PerturbationSpace.builder(
            Prompt.user("Look up order ORDER-123456 and report its status in one short line."))
        .dimension("typos", Typos.budgets(0, 1, 3))                      // edits per prompt
        .dimension("noise", Noise.rates(0, 0.1, 0.3))                    // share of words changed
        .dimension("padding", Padding.toTokens(TokenCounter.estimate(), 0, 512, 2048))  // prompt length
        .dimension("paraphrase", Paraphrase.templates("{text}", "Please help: {text}", "{text}\n\nThanks."))
        .build();
    Design l9 = Designs.orthogonalArray(space.levelCounts());
    List<Variant> variants = space.variants(l9, 42);
    VariantWorkload workload = VariantWorkload.of(variants).repetitions(REPETITIONS);

    SimulatorConfig config = SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).seed(4).build();
    try (Simulator sim = Simulator.start(config);
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()).build()) {
      RunResult run = Benchmark.target(target)
          .workload(workload)
          .params(GenerationParams.builder().maxTokens(OUTPUT_TOKENS).ignoreEos(true).build())
          .load(LoadProfile.concurrency(4).requests(workload.size()))
          .run();

      List<String> names = space.dimensions().stream().map(Dimension::name).toList();
      out.printf(Locale.ROOT, "%s: %d cells x %d repetitions%n", l9, variants.size(), REPETITIONS);
      out.printf(Locale.ROOT, "| cell | %s | requests | failed | prompt tokens | TTFT p50 ms | E2E p50 ms |%n",
          String.join(" | ", names));
      List<Cell> cells = new ArrayList<>();
      for (Variant v : variants) {
        Cell c = cell(v, run.measured());
        cells.add(c);
        out.printf(Locale.ROOT, "| %4d | %s | %8d | %6d | %13.0f | %11.1f | %10.1f |%n", c.variant(),
            Arrays.stream(c.levels()).mapToObj(l -> String.format(Locale.ROOT, "%" + 5 + "d", l))
                .collect(Collectors.joining(" | ")),
            c.requests(), c.failed(), c.meanPromptTokens(), c.ttftP50Ms(), c.e2eP50Ms());
      }
      out.println();
      out.println("Main effects (each level over the cells that have it):");
      for (String name : names) {
        out.print(LevelTable.of(run, name).table());
      }
      return new Result(space, variants, run, cells);
    }
  }

  /** The per-cell figures of variant {@code v}'s measured records. */
  static Cell cell(Variant v, List<RequestRecord> records) {
    String id = Integer.toString(v.index());
    List<RequestRecord> mine = records.stream().filter(r -> id.equals(r.tags().get(Variant.VARIANT_TAG))).toList();
    List<RequestRecord> ok = mine.stream().filter(RequestRecord::succeeded).toList();
    double promptTokens = ok.stream().mapToInt(r -> r.usage().promptTokens().orElse(0)).average().orElse(Double.NaN);
    return new Cell(v.index(), v.levels(), mine.size(), mine.size() - ok.size(), promptTokens,
        p50(ok, LatencyMetric.TTFT), p50(ok, LatencyMetric.E2E));
  }

  private static double p50(List<RequestRecord> records, LatencyMetric metric) {
    double[] values = records.stream().flatMapToDouble(r -> Arrays.stream(metric.valuesMillis(r))).toArray();
    return Distribution.of(values).p50().orElse(Double.NaN);
  }
}
