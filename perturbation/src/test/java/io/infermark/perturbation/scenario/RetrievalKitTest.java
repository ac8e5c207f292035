package io.infermark.perturbation.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.pipeline.RetrievalTarget;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.perturbation.fidelity.SemanticFidelityFuse;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.PromptBehaviour;
import io.infermark.testkit.simulator.SimulatedVectorIndex;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The retrieval kit: a simulated vector index before the simulator, at rising concurrency. */
class RetrievalKitTest {

  // The simulator answers from its context (the passages), 20 words: exactly the reference when retrieval is
  // perfect.
  private static final SimulatorConfig CONFIG = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(2))
      .interTokenInterval(Duration.ofMillis(1)).promptBehaviour(PromptBehaviour.echoContext()).build();

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(CONFIG);

  private static final Logger LOG = LoggerFactory.getLogger(RetrievalKitTest.class);

  /** Each of the index's prompts tagged with its reference answer: what a perfect retrieval would give it. */
  private static List<Prompt> withReferences(SimulatedVectorIndex index, List<Prompt> prompts) {
    return prompts.stream()
        .map(p -> p.withTag(SemanticFidelityFuse.REFERENCE_TAG, index.reference(p).strip()))
        .toList();
  }

  @Test
  void recallMrrAndRetrievalLatencyFollowTheIndexModelAndTheSecondLevelDegrades(Simulator sim) {
    // 4 relevant documents per query; 10 ms + 5 ms per other search in flight; recall 1 - 0.2 per other search
    // (floor 0.25); one distractor ranked first per other search.
    SimulatedVectorIndex index = SimulatedVectorIndex.builder().relevantPerQuery(4).baseLatency(Duration.ofMillis(10))
        .latencyPerInFlight(Duration.ofMillis(5)).recallDropPerInFlight(0.2).minRecall(0.25).rankDropPerInFlight(1)
        .seed(7).build();
    assertThat(index.found(1)).isEqualTo(4); // recall 1.0
    assertThat(index.found(2)).isEqualTo(3); // round(4 x 0.8 = 3.2) = 3
    assertThat(index.found(3)).isEqualTo(2); // round(4 x 0.6 = 2.4) = 2
    assertThat(index.found(5)).isEqualTo(1); // the 0.25 floor: 4 x 0.25 = 1
    RetrievalKit kit = RetrievalKit.builder().minRecall(0.9).fidelityFuse(SemanticFidelityFuse.defaults()).build();
    List<RetrievalKit.Level> levels = new ArrayList<>();
    try (RetrievalTarget rag = RetrievalTarget.builder(OpenAiTarget.chat(sim.baseUrl() + "/v1", CONFIG.model()).build(),
            index).topK(4).build()) {
      for (int c : new int[] {1, 6}) {
        RunResult run = Benchmark.target(rag).prompts(withReferences(index, index.prompts(60))).captureText(true)
            .params(GenerationParams.builder().maxTokens(20).ignoreEos(true).build())
            .load(LoadProfile.concurrency(c).requests(60).warmupRequests(c)).run();
        assertThat(run.measured()).allMatch(RequestRecord::succeeded);
        for (RequestRecord r : run.measured()) {
          int n = Integer.parseInt(r.tags().get(SimulatedVectorIndex.IN_FLIGHT_TAG));
          assertThat(n).isBetween(1, c);
          // Hand model: d = min(4, n - 1) distractors first, then min(found(n), 4 - d) relevant documents:
          // recall@4 = that / 4; the first relevant one at rank d + 1, so the Top-3 reciprocal rank is
          // 1 / (d + 1) when some fit and d + 1 <= 3, else 0.
          int d = index.displaced(n, 4);
          int hits = Math.max(0, Math.min(index.found(n), 4 - d));
          assertThat(RetrievalTarget.recallAtK(r)).hasValue(hits / 4.0);
          assertThat(RetrievalTarget.reciprocalRank(r, 3)).hasValue(hits > 0 && d + 1 <= 3 ? 1.0 / (d + 1) : 0.0);
          // The stage took at least the model's latency; it starts at the send.
          assertThat(r.phases().offsetNanos(Phase.RETRIEVAL_START)).hasValue(0);
          assertThat(r.phases().retrievalNanos().getAsLong()).isGreaterThanOrEqualTo(index.latency(n).toNanos());
          // Generation starts after retrieval: the first token cannot precede the stage's end.
          assertThat(r.chunks().firstTokenOffsetNanos().getAsLong())
              .isGreaterThan(r.phases().offsetNanos(Phase.RETRIEVAL_END).getAsLong());
        }
        levels.add(new RetrievalKit.Level("concurrency " + c, c, run.measured()));
      }
    }
    RetrievalVerdict verdict = kit.verdict(levels);
    LOG.info("{}\n{}", verdict, verdict.table());
    // One stream: every search is alone: recall 1, MRR 1, every answer is its reference (fidelity 1).
    RetrievalVerdict.Level alone = verdict.levels().get(0);
    assertThat(alone.meanRecall()).isEqualTo(1.0);
    assertThat(alone.mrr()).isEqualTo(1.0);
    assertThat(alone.fidelity().orElseThrow().meanScore()).isEqualTo(1.0);
    assertThat(alone.fidelity().orElseThrow().tripped()).isFalse();
    assertThat(alone.retrievalP50Ms()).isGreaterThanOrEqualTo(10.0);
    assertThat(alone.degraded()).isFalse();
    // Six streams: searches overlap (each is at least 10 ms of a cycle of about 10 + 2 + 19 ms), and a search that
    // meets even one other finds 3 of 4 (0.75 < 0.9) behind a distractor (MRR 0.5): the level degrades, and so
    // does its fidelity (the answers carry distractor passages).
    RetrievalVerdict.Level six = verdict.levels().get(1);
    assertThat(six.meanRecall()).isLessThan(0.9);
    assertThat(six.mrr()).isLessThan(1.0);
    assertThat(six.fidelity().orElseThrow().meanScore()).isLessThan(1.0);
    assertThat(six.degraded()).isTrue();
    assertThat(verdict.pass()).isFalse();
    assertThat(verdict.degradedAt().map(RetrievalVerdict.Level::label)).contains("concurrency 6");
    for (RetrievalVerdict.Level l : verdict.levels()) {
      assertThat(l.requests()).isEqualTo(60);
    }
    // The level's means are the means of the per-request model values.
    assertThat(six.meanRecall()).isCloseTo(levels.get(1).records().stream().mapToDouble(r -> {
      int n = Integer.parseInt(r.tags().get(SimulatedVectorIndex.IN_FLIGHT_TAG));
      return Math.max(0, Math.min(index.found(n), 4 - index.displaced(n, 4))) / 4.0;
    }).average().getAsDouble(), within(1e-12));
    assertThat(verdict.table()).contains("MRR@3", "fidelity", "e2e p95");
    // Seed 003 §2.2 reports P95 latency per concurrency level: each level's P95 end to end, linear, from its records.
    for (int i = 0; i < 2; i++) {
      double[] e2e = levels.get(i).records().stream().mapToDouble(r -> r.chunks().lastTokenOffsetNanos().getAsLong() / 1e6)
          .sorted().toArray();
      RetrievalVerdict.Level l = verdict.levels().get(i);
      assertThat(l.e2eP95Ms()).isEqualTo(io.infermark.core.stats.QuantileMethod.LINEAR.quantile(e2e, 0.95))
          .isLessThanOrEqualTo(l.e2eP99Ms());
    }
  }
}
