package io.infermark.attribution.phase;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.pipeline.Retrieval;
import io.infermark.core.pipeline.RetrievalTarget;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * A retrieval pipeline whose retriever is slow for five queries in a hundred: the phase
 * decomposition with retrieval puts the tail in the retrieval phase; the plain one cannot.
 */
class RetrievalPhaseTest {

  private static final SimulatorConfig CONFIG = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(3))
      .interTokenInterval(Duration.ofMillis(1)).build();

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(CONFIG);

  private static final long SLOW_NANOS = 200_000_000L;

  @Test
  void aSlowRetrieverShowsAsTheRetrievalPhaseOfTheTail(Simulator sim) {
    // A user-supplied retriever: 200 ms for queries tagged slow (parked, so at least that), else at once.
    List<Prompt> prompts = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      String q = (i % 20 == 7 ? "slow " : "fast ") + "question " + i;
      prompts.add(Prompt.user(q).withTag(RetrievalTarget.RELEVANT_TAG, "d" + i));
    }
    RunResult run;
    try (RetrievalTarget rag = RetrievalTarget.builder(OpenAiTarget.chat(sim.baseUrl() + "/v1", CONFIG.model()).build(),
            (query, k) -> {
              if (query.startsWith("slow")) {
                long end = System.nanoTime() + SLOW_NANOS;
                for (long left; (left = end - System.nanoTime()) > 0; ) {
                  LockSupport.parkNanos(left);
                }
              }
              return Retrieval.of(List.of("d" + query.substring(query.lastIndexOf(' ') + 1)), List.of("text"));
            }).topK(1).build()) {
      run = Benchmark.target(rag).prompts(prompts).params(GenerationParams.builder().maxTokens(8).ignoreEos(true).build())
          .load(LoadProfile.concurrency(4).requests(100).warmupRequests(8)).run(); // warmup: connections, JIT
    }
    assertThat(run.measured()).hasSize(100).allMatch(RequestRecord::succeeded);
    for (RequestRecord r : run.measured()) {
      RequestPhases p = RequestPhases.of(r, LatencyBasis.SERVICE_TIME_WITH_RETRIEVAL);
      // Retrieval starts at the send, so its phase is exactly the stage's end offset.
      assertThat(p.nanos(LatencyPhase.RETRIEVAL)).isEqualTo(r.phases().offsetNanos(Phase.RETRIEVAL_END).getAsLong());
      assertThat(p.nanos(LatencyPhase.RETRIEVAL)).isEqualTo(r.phases().retrievalNanos().getAsLong());
      assertThat(RetrievalTarget.recallAtK(r)).hasValue(1.0);
      if (r.tags().get(RetrievalTarget.RELEVANT_TAG).equals("d7")) {
        assertThat(p.nanos(LatencyPhase.RETRIEVAL)).isGreaterThanOrEqualTo(SLOW_NANOS);
      }
    }

    PhaseDecomposition phases = PhaseDecomposition.of(run, LatencyBasis.SERVICE_TIME_WITH_RETRIEVAL);
    PhaseBreakdown p95 = phases.atOrAbovePercentile(0.95);
    // The five slow requests (>= 200 ms) are exactly those at or above P95 of 100.
    assertThat(p95.requestCount()).isEqualTo(5);
    assertThat(p95.ranking().get(0)).isEqualTo(LatencyPhase.RETRIEVAL);
    assertThat(p95.meanMillis(LatencyPhase.RETRIEVAL)).isGreaterThanOrEqualTo(200.0);
    assertThat(phases.totals().sortedValuesMillis())
        .containsExactly(RunSummary.of(run).distribution(LatencyMetric.E2E).sortedValuesMillis());
    // Without the retrieval phase, the stage's time lands in a generation phase instead.
    PhaseBreakdown plain = PhaseDecomposition.of(run, LatencyBasis.SERVICE_TIME).atOrAbovePercentile(0.95);
    assertThat(plain.phases()).doesNotContain(LatencyPhase.RETRIEVAL);
    LoggerFactory.getLogger(RetrievalPhaseTest.class).info("slow retrieval:\n{}", phases.table(0.95, 0.99));
  }
}
