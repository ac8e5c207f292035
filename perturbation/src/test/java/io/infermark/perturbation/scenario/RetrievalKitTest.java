package io.infermark.perturbation.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.pipeline.RetrievalTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.target.OpenAiTarget;
import io.infermark.testkit.simulator.SimulatedVectorIndex;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The retrieval kit: a simulated vector index before the simulator, at rising concurrency. */
class RetrievalKitTest {

  private static final Logger LOG = LoggerFactory.getLogger(RetrievalKitTest.class);

  @Test
  void recallAndRetrievalLatencyFollowTheIndexModelAtEveryLoadAndTheVerdictNamesTheFirstDegradedLevel() {
    // 4 relevant documents per query; 4 ms + 2 ms per other search in flight; recall 1 - 0.2 per other search.
    SimulatedVectorIndex index = SimulatedVectorIndex.builder().relevantPerQuery(4).baseLatency(Duration.ofMillis(4))
        .latencyPerInFlight(Duration.ofMillis(2)).recallDropPerInFlight(0.2).minRecall(0.25).seed(7).build();
    assertThat(index.found(1)).isEqualTo(4); // recall 1.0
    assertThat(index.found(2)).isEqualTo(3); // round(4 x 0.8 = 3.2) = 3
    assertThat(index.found(3)).isEqualTo(2); // round(4 x 0.6 = 2.4) = 2
    assertThat(index.found(5)).isEqualTo(1); // the 0.25 floor: 4 x 0.25 = 1
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(2))
        .interTokenInterval(Duration.ofMillis(1)).build();
    RetrievalKit kit = RetrievalKit.builder().minRecall(0.9).build();
    List<RetrievalKit.Level> levels = new ArrayList<>();
    try (Simulator sim = Simulator.start(config);
        RetrievalTarget rag = RetrievalTarget.builder(OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()).build(),
            index).topK(4).build()) {
      for (int c : new int[] {1, 6}) {
        RunResult run = Benchmark.target(rag).prompts(index.prompts(60))
            .params(GenerationParams.builder().maxTokens(4).ignoreEos(true).build())
            .load(LoadProfile.concurrency(c).requests(60).warmupRequests(c)).run();
        assertThat(run.measured()).allMatch(RequestRecord::succeeded);
        for (RequestRecord r : run.measured()) {
          int n = Integer.parseInt(r.tags().get(SimulatedVectorIndex.IN_FLIGHT_TAG));
          assertThat(n).isBetween(1, c);
          // Hand model: recall@4 = round(4 x recall(n)) / 4, exactly.
          assertThat(RetrievalTarget.recallAtK(r)).hasValue(index.found(n) / 4.0);
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
    // One stream: every search is alone, recall 1 and no degradation.
    RetrievalVerdict.Level alone = verdict.levels().get(0);
    assertThat(alone.meanRecall()).isEqualTo(1.0);
    assertThat(alone.retrievalP50Ms()).isGreaterThanOrEqualTo(4.0);
    assertThat(alone.degraded()).isFalse();
    // The verdict follows its own numbers: a level degrades exactly when its mean recall is below 0.9.
    for (RetrievalVerdict.Level l : verdict.levels()) {
      assertThat(l.degraded()).isEqualTo(l.meanRecall() < 0.9);
      assertThat(l.requests()).isEqualTo(60);
    }
    assertThat(verdict.pass()).isEqualTo(verdict.levels().stream().noneMatch(RetrievalVerdict.Level::degraded));
    assertThat(verdict.degradedAt().map(RetrievalVerdict.Level::label))
        .isEqualTo(verdict.levels().stream().filter(RetrievalVerdict.Level::degraded).findFirst()
            .map(RetrievalVerdict.Level::label));
    // Mean recall is the mean of the per-request model values.
    assertThat(verdict.levels().get(1).meanRecall()).isCloseTo(levels.get(1).records().stream()
        .mapToDouble(r -> index.found(Integer.parseInt(r.tags().get(SimulatedVectorIndex.IN_FLIGHT_TAG))) / 4.0)
        .average().getAsDouble(), within(1e-12));
  }
}
