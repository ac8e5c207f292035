package io.infermark.testkit.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.pipeline.RetrievalTarget;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.metrics.otel.ContextRelevanceTelemetry;
import io.infermark.testkit.simulator.PromptBehaviour;
import io.infermark.testkit.simulator.SimulatedVectorIndex;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.function.ToDoubleBiFunction;
import org.junit.jupiter.api.Test;

/** Seed 000's context_relevance_score over a retrieval pipeline against the simulator. */
class ContextRelevanceScenarioTest {

  /** Share of the passages' words the answer contains. */
  private static final ToDoubleBiFunction<String, String> CONTEXT_WORDS_ANSWERED = (answer, context) -> {
    Set<String> said = new HashSet<>(Arrays.asList(answer.split("\\s+")));
    String[] words = context.split("\\s+");
    return Arrays.stream(words).filter(said::contains).count() / (double) words.length;
  };

  private static double meanRelevance(PromptBehaviour behaviour) {
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(2))
        .interTokenInterval(Duration.ofMillis(1)).promptBehaviour(behaviour).build();
    SimulatedVectorIndex index = SimulatedVectorIndex.builder().baseLatency(Duration.ofMillis(1))
        .latencyPerInFlight(Duration.ZERO).recallDropPerInFlight(0).build();
    try (Simulator sim = Simulator.start(config);
        RetrievalTarget rag = RetrievalTarget.builder(OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()).build(),
            index).topK(4).recordContext(true).build()) {
      // the gauge itself is checked against an SDK in metrics' ContextRelevanceTelemetryTest
      ContextRelevanceTelemetry relevance = ContextRelevanceTelemetry.create(OpenTelemetry.noop(),
          CONTEXT_WORDS_ANSWERED);
      RunResult run = Benchmark.target(rag).prompts(index.prompts(12)).captureText(true).listener(relevance)
          .params(GenerationParams.builder().maxTokens(20).ignoreEos(true).build())
          .load(LoadProfile.concurrency(2).requests(12)).run();
      assertThat(run.measured()).hasSize(12).allMatch(RequestRecord::succeeded)
          .allSatisfy(r -> assertThat(r.tags().get(RetrievalTarget.CONTEXT_TAG)).startsWith("Passage of doc-"));
      assertThat(relevance.scored()).isEqualTo(12);
      return relevance.meanScore().getAsDouble();
    }
  }

  @Test
  void anAnswerFromItsPassagesScoresOneAndOneThatIgnoresThemScoresLess() {
    // echoContext answers with the system message's first 20 words: "Answer from these passages:" and four
    // "[doc-i] Passage of doc-i." lines, every word of the four passages.
    assertThat(meanRelevance(PromptBehaviour.echoContext())).isEqualTo(1.0);
    assertThat(meanRelevance(PromptBehaviour.ignorePrompts())).isLessThan(0.5);
  }
}
