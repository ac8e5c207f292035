package io.infermark.testkit.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.protocol.HttpTarget;
import io.infermark.core.protocol.LlamaCppTarget;
import io.infermark.core.protocol.OpenAiResponsesTarget;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.Sessions;
import io.infermark.core.workload.SharedPrefix;
import io.infermark.core.workload.Workload;
import io.infermark.core.workload.WorkloadTags;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.cache.PrefixCacheSummary;
import io.infermark.metrics.cache.PromptReuse;
import io.infermark.metrics.report.ConsoleTable;
import io.infermark.metrics.report.JsonReport;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.SequenceTimeline;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The prefix-cache accounting against the simulator's engine, whose prefix cache keeps, for every request, the prompt
 * tokens it found cached at first admission (its ground truth, {@link SequenceTimeline#cachedPromptTokens()}): each
 * record's cached count, and the run's, session's and turn's hit ratios, equal that ground truth exactly, over every
 * protocol through which the simulator reports cached tokens.
 */
class PrefixCacheGroundTruthTest {

  private static SimulatorConfig config() {
    return SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).tokensPerChunk(1).outputTokensBetween(6, 12)
        .reasoningTokens(0).seed(29).build();
  }

  private static RunResult run(HttpTarget target, Workload workload, boolean stream, int requests, PromptReuse reuse) {
    return Benchmark.target(target).preflight(false).workload(workload).listener(reuse)
        .params(GenerationParams.builder().maxTokens(12).stream(stream).build())
        .load(LoadProfile.concurrency(2).requests(requests)).run();
  }

  private static SequenceTimeline truth(Simulator sim, RequestRecord r) {
    return sim.timeline(r.requestId()).orElseThrow().engine().orElseThrow();
  }

  /** Σ ground-truth cached and prompt tokens of {@code records} grouped by {@code key}. */
  private static Map<String, long[]> truthBy(Simulator sim, List<RequestRecord> records,
      Function<RequestRecord, String> key) {
    Map<String, long[]> out = new HashMap<>();
    for (RequestRecord r : records) {
      SequenceTimeline t = truth(sim, r);
      long[] sums = out.computeIfAbsent(key.apply(r), k -> new long[3]);
      sums[0] += t.cachedPromptTokens();
      sums[1] += t.promptTokens();
      sums[2] += t.cachedPromptTokens() > 0 ? 1 : 0;
    }
    return out;
  }

  private static void matchesGroundTruth(Simulator sim, RunResult run, int requests) {
    List<RequestRecord> measured = run.measured();
    assertThat(measured).hasSize(requests).allMatch(RequestRecord::succeeded);
    for (RequestRecord r : measured) {
      SequenceTimeline t = truth(sim, r);
      assertThat(PrefixCacheSummary.cachedPromptTokens(r)).as("%s", r).hasValue(t.cachedPromptTokens());
      assertThat(PrefixCacheSummary.promptTokens(r)).as("%s", r).hasValue(t.promptTokens());
    }
    long[] all = truthBy(sim, measured, r -> "run").get("run");
    assertThat(all[0]).as("the workload reused prefixes, so the engine hit its cache").isPositive();
    PrefixCacheSummary cache = RunSummary.of(run).prefixCache();
    PrefixCacheSummary.Group g = cache.run();
    assertThat(g.requests()).isEqualTo(requests);
    assertThat(g.reporting()).isEqualTo(requests);
    assertThat(g.cachedTokens()).isEqualTo(all[0]);
    assertThat(g.promptTokens()).isEqualTo(all[1]);
    assertThat(g.hits()).isEqualTo(all[2]);
    assertThat(g.hitRatio()).hasValue((double) all[0] / all[1]);
    assertThat(cache.ttftHit().count()).isEqualTo((int) all[2]);
    assertThat(cache.ttftMiss().count()).isEqualTo(requests - (int) all[2]);
  }

  @Test
  void chatStreamsReportTheEnginesCachedTokensPerRequestSessionAndTurn() {
    try (Simulator sim = Simulator.start(config());
        HttpTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      PromptReuse reuse = PromptReuse.counting(TokenCounter.estimate());
      RunResult run = run(target, Sessions.builder().turns(3).userTokens(40).seed(3).build(), true, 12, reuse);
      matchesGroundTruth(sim, run, 12);
      RunSummary summary = RunSummary.of(run).withPromptReuse(run.records(), reuse);
      PrefixCacheSummary cache = summary.prefixCache();
      Map<String, long[]> sessions = truthBy(sim, run.measured(), r -> r.tags().get(WorkloadTags.SESSION));
      Map<String, long[]> turns = truthBy(sim, run.measured(), r -> r.tags().get(WorkloadTags.TURN));
      assertThat(cache.bySession().keySet()).isEqualTo(sessions.keySet());
      assertThat(cache.byTurn().keySet()).containsExactly("0", "1", "2");
      sessions.forEach((k, v) -> {
        assertThat(cache.bySession().get(k).cachedTokens()).as("session %s", k).isEqualTo(v[0]);
        assertThat(cache.bySession().get(k).promptTokens()).as("session %s", k).isEqualTo(v[1]);
      });
      turns.forEach((k, v) -> {
        assertThat(cache.byTurn().get(k).cachedTokens()).as("turn %s", k).isEqualTo(v[0]);
        assertThat(cache.byTurn().get(k).hitRatio()).as("turn %s", k).hasValue((double) v[0] / v[1]);
      });
      // Turns after the first carry the whole history: the engine finds it cached, the ideal counts it shared.
      assertThat(cache.byTurn().get("2").hitRatio().getAsDouble()).isGreaterThan(0.3)
          .isGreaterThan(cache.byTurn().get("0").hitRatio().getAsDouble());
      // First turns share only what the synthetic user text happens to start with; later ones their history.
      assertThat(cache.byTurn().get("2").idealRatio().getAsDouble()).isGreaterThan(0.5)
          .isGreaterThan(cache.byTurn().get("0").idealRatio().getAsDouble());
      assertThat(cache.run().idealRequests()).isEqualTo(12);
      assertThat(ConsoleTable.render(summary)).contains("prefix cache").contains("ideal");
      assertThat(JsonReport.toJson(summary)).contains("\"prefix_cache\"").contains("\"ideal_hit_ratio\"");
    }
  }

  @Test
  void completionsWithoutStreamingReportTheSameGroundTruth() {
    try (Simulator sim = Simulator.start(config());
        HttpTarget target = OpenAiTarget.completions(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      RunResult run = run(target, SharedPrefix.of(2, 96, 8), false, 8, PromptReuse.counting(TokenCounter.estimate()));
      matchesGroundTruth(sim, run, 8);
    }
  }

  @Test
  void responsesStreamsReportTheEnginesCachedTokens() {
    try (Simulator sim = Simulator.start(config());
        HttpTarget target = OpenAiResponsesTarget.responses(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      RunResult run = run(target, SharedPrefix.of(2, 96, 8), true, 8, PromptReuse.counting(TokenCounter.estimate()));
      matchesGroundTruth(sim, run, 8);
    }
  }

  @Test
  void llamaCppNativeStreamsReportCacheNInTheirTimings() {
    try (Simulator sim = Simulator.start(config());
        HttpTarget target = LlamaCppTarget.completion(sim.baseUrl()).build()) {
      RunResult run = run(target, SharedPrefix.of(2, 96, 8), true, 8, PromptReuse.counting(TokenCounter.estimate()));
      matchesGroundTruth(sim, run, 8);
      assertThat(run.measured()).allMatch(r -> r.serverTimings().containsKey(PrefixCacheSummary.LLAMACPP_CACHE_N));
    }
  }

  @Test
  void aSystemPrefixSharedAcrossSessionsIsServedFromCacheOnLaterSessionsFirstTurns() {
    try (Simulator sim = Simulator.start(config());
        HttpTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      PromptReuse reuse = PromptReuse.counting(TokenCounter.estimate());
      RunResult run = Benchmark.target(target).preflight(false).listener(reuse)
          .workload(Sessions.builder().turns(2).userTokens(20).sharedPrefixTokens(96).retryProbability(0).seed(4)
              .build())
          .params(GenerationParams.builder().maxTokens(12).build())
          .load(LoadProfile.concurrency(1).requests(6)).run();
      matchesGroundTruth(sim, run, 6);
      PrefixCacheSummary cache = RunSummary.of(run).withPromptReuse(run.records(), reuse).prefixCache();
      // one stream: sessions 0.0, 0.1, 0.2 one after another; the later ones' first turns reuse the shared prefix
      RequestRecord laterFirstTurn = run.measured().get(2);
      assertThat(laterFirstTurn.tags()).containsEntry(WorkloadTags.TURN, "0");
      assertThat(truth(sim, laterFirstTurn).cachedPromptTokens()).isPositive();
      assertThat(PrefixCacheSummary.cachedPromptTokens(laterFirstTurn)).hasValue(truth(sim, laterFirstTurn)
          .cachedPromptTokens());
      assertThat(cache.byTurn().get("0").idealRatio().getAsDouble()).isGreaterThan(0.5);
    }
  }

  @Test
  void aCacheBustMarkerLeavesTheEngineNothingToReuse() {
    try (Simulator sim = Simulator.start(config());
        HttpTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      RunResult run = run(target, io.infermark.core.workload.CacheBust.of(SharedPrefix.of(1, 96, 8), 29), true, 6,
          PromptReuse.counting(TokenCounter.estimate()));
      assertThat(run.measured()).hasSize(6).allMatch(RequestRecord::succeeded);
      for (RequestRecord r : run.measured()) {
        assertThat(truth(sim, r).cachedPromptTokens()).isZero();
        assertThat(PrefixCacheSummary.cachedPromptTokens(r)).hasValue(0);
      }
      PrefixCacheSummary cache = RunSummary.of(run).prefixCache();
      assertThat(cache.run().hitRatio()).hasValue(0.0);
      assertThat(cache.run().hits()).isZero();
      assertThat(cache.ttftHit().isEmpty()).isTrue();
    }
  }
}
