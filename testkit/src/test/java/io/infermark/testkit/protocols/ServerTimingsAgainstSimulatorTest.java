package io.infermark.testkit.protocols;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.HttpTarget;
import io.infermark.core.protocol.LlamaCppTarget;
import io.infermark.core.protocol.OllamaTarget;
import io.infermark.core.protocol.TgiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.ServerTimingGap;
import io.infermark.metrics.report.ConsoleTable;
import io.infermark.metrics.report.JsonReport;
import io.infermark.testkit.TokenDelays;
import io.infermark.testkit.simulator.ColdStart;
import io.infermark.testkit.simulator.SequenceTimeline;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each protocol that reports server durations, against the simulator over HTTP: the record keeps
 * exactly the numbers the simulator wrote from its engine's ground-truth timeline (recomputed here
 * from that timeline), and each request's client − server differences lie within the delays that request's
 * own tokens took from the engine to the client.
 */
class ServerTimingsAgainstSimulatorTest {

  private static final Prompt PROMPT = Prompt.user("Tell me about latency.");

  /** Slack for double arithmetic on durations read in whole nanoseconds, in ms: a thousandth of a nanosecond. */
  private static final double ROUNDING = 1e-9;

  private static SimulatorConfig.Builder config() {
    return SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(4)).interTokenInterval(Duration.ofMillis(1))
        .tokensPerChunk(1).outputTokensBetween(4, 8).reasoningTokens(0).seed(11);
  }

  private static RunResult run(HttpTarget target, boolean stream, int requests) {
    return Benchmark.target(target).preflight(false).prompts(PROMPT)
        .params(GenerationParams.builder().maxTokens(8).stream(stream).build())
        .load(LoadProfile.concurrency(1).requests(requests)).run();
  }

  private static SequenceTimeline engine(Simulator sim, RequestRecord r) {
    return sim.timeline(r.requestId()).orElseThrow().engine().orElseThrow();
  }

  private static long last(SequenceTimeline t) {
    return t.tokenNanos(t.tokenCount() - 1);
  }

  private static long promptEval(SequenceTimeline t) {
    return t.prefillEndNanos().getAsLong() - t.prefillStartNanos().getAsLong();
  }

  /**
   * Every gap the summary shows, each request has one, and each request's gap lies within what that request itself
   * measured against the simulator's ground truth (not a whole-run percentile, which one slow read can exceed).
   *
   * <p>Client and engine read one clock ({@link System#nanoTime()}, the simulator runs in this JVM): a record's
   * instants are {@code run.originNanos() + r.sendNanos() + offset}. Let {@code first} be the client's read of
   * the first token minus the instant the engine made token 0 (the end of its step, which {@code timings} count
   * from; the simulator writes the bytes after that, so its write instant alone would not bound the gap), and
   * {@code last} the same for the last token: both are at least 0, since no client reads a token before it
   * exists. Then, exactly:
   *
   * <ul>
   *   <li>TTFT − server prefill = (send → server arrival) + (arrival + model load → prefill start)
   *       + {@code first} ≥ 0: the server's prefill (and load) lie between the client's send and first read;
   *   <li>E2E − server total = (send → arrival) + {@code last} ≥ 0 (llama.cpp's prompt_ms + predicted_ms
   *       span less than arrival → last token, so also ≥ 0);
   *   <li>TPOT − server per token = ({@code last} − {@code first}) / (N − 1): the only gap that may be
   *       negative, by at most this request's own first-token delay spread over its N − 1 gaps, and at most
   *       {@code last} / (N − 1) above zero.
   * </ul>
   *
   * <p>The simulator reports durations from nanosecond readings (llama.cpp's ms as {@code nanos / 1e6}, TGI's
   * seconds as the shortest decimal of {@code nanos / 1e9}), so the only slack is double rounding:
   * {@link #ROUNDING}.
   */
  private static void gapsWithinOwnDelays(RunResult run, Simulator sim, int requests, ServerTimingGap... expected) {
    RunSummary summary = RunSummary.of(run);
    assertThat(summary.clientMinusServer()).containsOnlyKeys(expected);
    for (Map.Entry<ServerTimingGap, Distribution> e : summary.clientMinusServer().entrySet()) {
      assertThat(e.getValue().count()).as("%s", e.getKey()).isEqualTo(requests);
    }
    for (RequestRecord r : run.measured()) {
      SequenceTimeline t = engine(sim, r);
      TokenDelays delays = TokenDelays.of(run, r, t.tokenNanos(0), last(t));
      for (ServerTimingGap gap : expected) {
        double ms = gap.millis(r).orElseThrow();
        double below = 0;
        double above = Double.POSITIVE_INFINITY;
        if (gap == ServerTimingGap.TPOT_MINUS_SERVER_PER_TOKEN) {
          int gaps = r.outputTokens() - 1;
          below = delays.tpotBelowMillis(gaps);
          above = delays.tpotAboveMillis(gaps);
        }
        assertThat(ms).as("%s of %s (first-token delay %.3f ms, last %.3f ms)", gap, r, delays.firstNanos() / 1e6,
            delays.lastNanos() / 1e6).isBetween(below - ROUNDING, above + ROUNDING);
      }
    }
    assertThat(ConsoleTable.render(summary)).contains("client-server (ms)");
    assertThat(JsonReport.toJson(summary)).contains("\"client_minus_server\"")
        .contains("\"" + expected[0].fieldName() + "\"");
  }

  @Test
  void ollamaReportsTheEnginesDurationsInNanosecondsWithTheColdStartsLoad() {
    try (Simulator sim = Simulator.start(config().coldStart(ColdStart.onFirstRequest(Duration.ofMillis(30))).build());
        HttpTarget target = OllamaTarget.chat(sim.baseUrl(), sim.config().model()).build()) {
      RunResult run = run(target, true, 3);
      assertThat(run.records()).allMatch(RequestRecord::succeeded);
      boolean sawLoad = false;
      for (RequestRecord r : run.records()) {
        SequenceTimeline t = engine(sim, r);
        assertThat(r.serverTimings()).as("%s", r).containsOnly(
            Map.entry("total_duration", (double) (last(t) - t.arrivalNanos())),
            Map.entry("load_duration", (double) t.loadDurationNanos()),
            Map.entry("prompt_eval_duration", (double) promptEval(t)),
            Map.entry("eval_duration", (double) (last(t) - t.tokenNanos(0))));
        sawLoad |= t.loadDurationNanos() > 0;
      }
      assertThat(sawLoad).as("the first request waited for the model to load").isTrue();
      gapsWithinOwnDelays(run, sim, 3, ServerTimingGap.TTFT_MINUS_SERVER_PREFILL,
          ServerTimingGap.E2E_MINUS_SERVER_TOTAL);
      // The server said which requests waited (load_duration > 0): the summary keeps them apart from the warm ones.
      long waited = run.measured().stream().filter(r -> engine(sim, r).loadDurationNanos() > 0).count();
      io.infermark.metrics.ColdStartSummary split = io.infermark.metrics.RunSummary.of(run).coldStarts();
      assertThat(split.cold()).isEqualTo(waited).isPositive();
      assertThat(split.warm()).isEqualTo(run.measured().size() - waited);
      for (RequestRecord r : run.measured()) {
        if (engine(sim, r).loadDurationNanos() > 0) {
          assertThat(r.chunks().firstTokenOffsetNanos().getAsLong() / 1e6)
              .isGreaterThanOrEqualTo(engine(sim, r).loadDurationNanos() / 1e6);
        }
      }
    }
  }

  @Test
  void ollamaGenerateWithoutStreamingReportsTheSameDurations() {
    try (Simulator sim = Simulator.start(config().build());
        HttpTarget target = OllamaTarget.generate(sim.baseUrl(), sim.config().model()).build()) {
      RunResult run = run(target, false, 2);
      for (RequestRecord r : run.records()) {
        SequenceTimeline t = engine(sim, r);
        assertThat(r.serverTimings()).containsEntry("total_duration", (double) (last(t) - t.arrivalNanos()))
            .containsEntry("load_duration", 0.0)
            .containsEntry("eval_duration", (double) (last(t) - t.tokenNanos(0)));
      }
      gapsWithinOwnDelays(run, sim, 2, ServerTimingGap.TTFT_MINUS_SERVER_PREFILL,
          ServerTimingGap.E2E_MINUS_SERVER_TOTAL);
    }
  }

  @Test
  void llamaCppReportsTheEnginesTimingsInMilliseconds() {
    try (Simulator sim = Simulator.start(config().build());
        HttpTarget target = LlamaCppTarget.completion(sim.baseUrl()).build()) {
      RunResult run = run(target, true, 3);
      assertThat(run.records()).allMatch(RequestRecord::succeeded);
      for (RequestRecord r : run.records()) {
        SequenceTimeline t = engine(sim, r);
        double promptMs = promptEval(t) / 1e6;
        double predictedMs = (last(t) - t.tokenNanos(0)) / 1e6;
        int n = t.tokenCount();
        assertThat(r.serverTimings()).as("%s", r)
            .containsEntry("timings.prompt_n", (double) (t.promptTokens() - t.cachedPromptTokens()))
            .containsEntry("timings.prompt_ms", promptMs)
            .containsEntry("timings.predicted_n", (double) n)
            .containsEntry("timings.predicted_ms", predictedMs)
            .containsEntry("timings.predicted_per_token_ms", predictedMs / n)
            .hasSize(8);
      }
      gapsWithinOwnDelays(run, sim, 3, ServerTimingGap.TTFT_MINUS_SERVER_PREFILL,
          ServerTimingGap.E2E_MINUS_SERVER_TOTAL,
          ServerTimingGap.TPOT_MINUS_SERVER_PER_TOKEN);
    }
  }

  @Test
  void theContinuousBatchingEngineReportsItsOwnStepTimesToConcurrentRequests() {
    SimulatorConfig engine = config().engine(io.infermark.testkit.simulator.EngineProfile.nearZeroCost().toBuilder()
        .name("prefill-cost").prefillPerTokenMs(0.05).build()).build();
    try (Simulator sim = Simulator.start(engine);
        HttpTarget target = OllamaTarget.generate(sim.baseUrl(), sim.config().model()).build()) {
      RunResult run = Benchmark.target(target).preflight(false).prompts(PROMPT)
          .params(GenerationParams.builder().maxTokens(8).build())
          .load(LoadProfile.concurrency(3).requests(6)).run();
      assertThat(run.records()).hasSize(6).allMatch(RequestRecord::succeeded);
      for (RequestRecord r : run.records()) {
        SequenceTimeline t = engine(sim, r);
        assertThat(r.serverTimings()).as("%s", r).containsOnly(
            Map.entry("total_duration", (double) (last(t) - t.arrivalNanos())),
            Map.entry("load_duration", 0.0),
            Map.entry("prompt_eval_duration", (double) promptEval(t)),
            Map.entry("eval_duration", (double) (last(t) - t.tokenNanos(0))));
      }
      gapsWithinOwnDelays(run, sim, 6, ServerTimingGap.TTFT_MINUS_SERVER_PREFILL,
          ServerTimingGap.E2E_MINUS_SERVER_TOTAL);
    }
  }

  @Test
  void tgiGenerateReportsItsTimingHeaders() {
    try (Simulator sim = Simulator.start(config().build());
        HttpTarget target = TgiTarget.generate(sim.baseUrl()).build()) {
      RunResult run = run(target, false, 3);
      assertThat(run.records()).allMatch(RequestRecord::succeeded);
      for (RequestRecord r : run.records()) {
        SequenceTimeline t = engine(sim, r);
        long total = last(t) - t.arrivalNanos();
        long inference = last(t) - t.admissionNanos().getAsLong();
        assertThat(r.serverTimings()).as("%s", r).containsOnly(
            Map.entry("x-compute-time", total / 1e9),
            Map.entry("x-total-time", (double) (total / 1_000_000)),
            Map.entry("x-validation-time", 0.0),
            Map.entry("x-queue-time", (double) (t.queueNanos().getAsLong() / 1_000_000)),
            Map.entry("x-inference-time", (double) (inference / 1_000_000)),
            Map.entry("x-time-per-token", (double) (inference / t.tokenCount() / 1_000_000)));
      }
      gapsWithinOwnDelays(run, sim, 3, ServerTimingGap.E2E_MINUS_SERVER_TOTAL);
    }
  }

  @Test
  void tgiGenerateStreamHasNoTimingHeadersAndNoGap() {
    try (Simulator sim = Simulator.start(config().build());
        HttpTarget target = TgiTarget.generate(sim.baseUrl()).build()) {
      RunResult run = run(target, true, 1);
      assertThat(run.records().get(0).serverTimings()).isEmpty();
      assertThat(RunSummary.of(run).clientMinusServer()).isEmpty();
    }
  }
}
