package io.infermark.attribution.surrogate;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.ExactLength;
import io.infermark.core.workload.WorkloadTags;
import io.infermark.metrics.LatencyMetric;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * End to end through the real path: {@link Benchmark} sends streamed chat requests with
 * {@link OpenAiTarget} to the HTTP simulator's engine, records come back with the server's usage
 * (parsed from SSE) and {@link ExactLength}'s tags, and a surrogate of E2E trained on them ranks
 * input tokens first, because a few long prompts make the tail (their prefill).
 *
 * <p>The engine is the 8B/H200 shape made about 4× cheaper (0.5 ms step overhead, 1 ms decode base,
 * 0.005 ms per prefill token, so 160 requests take about 8 s at a load it serves comfortably) with
 * vLLM-style chunked prefill of 512 tokens a step; prefix caching is off, so every prompt pays its
 * prefill. A 4000–8000-token prompt gets its first token after 40–100 ms, a short one after about
 * 8 ms, and 8 output tokens take about 12 ms more. Requests arrive at a constant 20 per second and
 * each block of ten holds exactly one long prompt, so long prefills do not pile up into congestion
 * that load features would explain instead; short requests sent during a long prefill still wait on
 * it (the load side of the tail), which is why {@code in_flight_at_send} comes second.
 *
 * <p>Robustness: on 2 cores, quiet, input tokens ranked first with about 4× the second factor's mean
 * |SHAP| and the slowest tenth held 15 of 16 long prompts in three runs. (Until the client set
 * TCP_NODELAY, Nagle's algorithm added 40 ms to each long prompt's upload without loading the server,
 * and this test ran at 40 requests/s; without that delay, at 40/s the short requests queued behind long
 * prefills made load nearly as important as length, 1.2× instead of the asserted 1.25×.) A machine
 * that stalls mid-run can make the backlog the tail; such a run fails the premise (the tail is mostly
 * long prompts), which is about the environment, not the surrogate, so the test then runs the next
 * seed, up to three.
 */
class SurrogateThroughBenchmarkTest {

  /** Counts whitespace-separated words, which is what the simulator's tokenizer counts in SyntheticText. */
  private static final TokenCounter WORDS = new TokenCounter() {
    @Override
    public int count(String text) {
      String t = text.strip();
      return t.isEmpty() ? 0 : t.split("\\s+").length;
    }

    @Override
    public String name() {
      return "words";
    }
  };

  private static final EngineProfile ENGINE = EngineProfile.llama8bH200().toBuilder().name("fast-chunked-8b")
      .stepOverheadMs(0.5).decodeBaseMs(1.0).prefillPerTokenMs(0.005).prefillQuadraticMs(1e-7)
      .maxBatchedTokens(512).prefixCaching(false).build();

  private static final int REQUESTS = 160;
  private static final int WARMUP = 20;
  private static final int ATTEMPTS = 3;

  /**
   * One prompt per request: in each block of ten, one at a seeded position has 4000–8000 tokens and
   * the others 50–400, each built to its exact length (and tagged with it) by {@link ExactLength}.
   */
  private static List<Prompt> prompts(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<Prompt> prompts = new ArrayList<>();
    int longAt = -1;
    for (int i = 0; i < WARMUP + REQUESTS; i++) {
      if (i % 10 == 0) {
        longAt = i + random.nextInt(10);
      }
      int tokens = i == longAt ? 4000 + random.nextInt(4001) : 50 + random.nextInt(351);
      prompts.add(ExactLength.prompt(WORDS, tokens, seed * 1_000_003L + i));
    }
    return prompts;
  }

  private static RunResult run(long seed) {
    SimulatorConfig config = SimulatorConfig.builder().engine(ENGINE).seed(seed).build();
    try (Simulator simulator = Simulator.start(config);
        OpenAiTarget target = OpenAiTarget.chat(simulator.baseUrl() + "/v1", config.model()).build()) {
      return Benchmark.target(target).preflight(false) // the server's seeded choices are per request number
          .prompts(prompts(seed))
          .params(GenerationParams.builder().maxTokens(8).ignoreEos(true).build())
          .load(LoadProfile.constantRate(20).requests(REQUESTS).warmupRequests(WARMUP))
          .run();
    }
  }

  /** How many of the requests above the P90 of E2E have a long (≥ 4000-token) prompt, and how many there are. */
  private static long[] longPromptsInTail(List<RequestRecord> measured) {
    double[] e2e = measured.stream().mapToDouble(r -> LatencyMetric.E2E.valuesMillis(r)[0]).toArray();
    double p90 = QuantileMethod.LINEAR.quantile(Arrays.stream(e2e).sorted().toArray(), 0.9);
    long tail = 0;
    long longTail = 0;
    for (int i = 0; i < measured.size(); i++) {
      if (e2e[i] > p90) {
        tail++;
        longTail += measured.get(i).usage().promptTokens().orElse(0) >= 4000 ? 1 : 0;
      }
    }
    return new long[] {longTail, tail};
  }

  @Test
  void longPromptTailRanksInputTokensFirstThroughTheRealPath() {
    Logger log = LoggerFactory.getLogger(SurrogateThroughBenchmarkTest.class);
    RunResult result = null;
    long[] tail = {0, 0};
    for (long seed = 1; seed <= ATTEMPTS; seed++) {
      result = run(seed);
      List<RequestRecord> measured = result.records().stream().filter(RequestRecord::measured).toList();
      assertThat(result.failureCount()).isZero();
      assertThat(measured).hasSize(REQUESTS);
      // The real path: the server's prompt count (from the stream's usage) is the tagged exact length.
      for (RequestRecord r : measured) {
        assertThat(r.usage().promptTokens()).as("request %d", r.index())
            .hasValue(Integer.parseInt(r.tags().get(WorkloadTags.INPUT_TOKENS_REQUESTED)));
      }
      tail = longPromptsInTail(measured);
      log.info("seed {}: {} of the {} requests above P90 E2E have long prompts", seed, tail[0], tail[1]);
      if (tail[0] >= Math.round(0.7 * tail[1]) && !result.clientHealth().isClientBound()) {
        break;
      }
    }
    // A client that could not keep up adds its own stalls to E2E, which no request feature explains, and a machine
    // that stalled in every attempt can make the backlog the tail. The ranking below is a claim about the server,
    // so it is judged on a run the client could measure whose tail is mostly long prompts; every other claim is
    // judged on every run (before, the whole test was skipped when the client was bound).
    boolean trusted = !result.clientHealth().isClientBound() && tail[0] >= Math.round(0.7 * tail[1]);

    FeatureTable table = FeatureTable.builder().build(result.records());
    Surrogate surrogate = XgboostSurrogate.builder().build().fit(table, SurrogateTarget.e2e());
    SurrogateExplanation why = surrogate.explain();
    log.info("{}\n{}", surrogate, why);

    assertThat(table.rowCount()).isEqualTo(REQUESTS); // warmup excluded
    assertThat(table.columns()).contains(FeatureTable.INPUT_TOKENS, FeatureTable.IN_FLIGHT,
        FeatureTable.ARRIVALS_PREVIOUS_SECOND);
    // The table's input tokens are the server-reported prompt counts, the exact lengths the workload asked for.
    double[] inputs = table.column(FeatureTable.INPUT_TOKENS);
    List<RequestRecord> rows = result.records().stream().filter(RequestRecord::measured).filter(RequestRecord::succeeded)
        .toList();
    for (int i = 0; i < rows.size(); i++) {
      assertThat(inputs[i]).isEqualTo(Double.parseDouble(rows.get(i).tags().get(WorkloadTags.INPUT_TOKENS_REQUESTED)));
    }
    if (trusted) {
      assertThat(why.ranking().get(0)).isEqualTo(FeatureTable.INPUT_TOKENS);
      assertThat(why.importance().get(0).meanAbsShap()).isGreaterThan(1.25 * why.importance().get(1).meanAbsShap());
    } else {
      log.warn("not judging the ranking: client {} and {} of {} tail requests long in the last attempt",
          result.clientHealth().verdict(), tail[0], tail[1]);
    }
    // The held-out fit is reported, not judged: 32 held-out rows of which about one in twenty is a long prompt
    // make its R² a property of the split (0.34 to 0.90 over seeds 1-12 on a quiet machine, -0.75 once under
    // load when the held-out rows had almost no long prompt). The claims are the attribution above and these:
    assertThat(why.fit().testRows()).isEqualTo(32);
    assertThat(why.fit().rSquared()).isPresent();
    assertThat(why.fit().rmseMillis().getAsDouble()).isFinite();
    assertThat(why.maxEfficiencyGap()).isLessThan(1e-6);
    assertThat(surrogate.conversionGap()).isLessThan(1e-2);
  }
}
