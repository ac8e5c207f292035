package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.pipeline.Retrieval;
import io.infermark.core.pipeline.RetrievalTarget;
import io.infermark.core.request.Prompt;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A query's reference is exactly the context that a perfect retrieval of it puts in front of the model. */
class SimulatedVectorIndexReferenceTest {

  @Test
  void theReferenceIsTheContextOfAPerfectRetrieval() {
    SimulatedVectorIndex index = SimulatedVectorIndex.builder().relevantPerQuery(3).baseLatency(Duration.ZERO)
        .latencyPerInFlight(Duration.ZERO).build();
    Prompt query = index.prompts(1).get(0);
    // one search in flight: recall 1, nothing displaced, so the top 3 are exactly the 3 relevant documents
    Retrieval perfect = index.retrieve(query.messages().get(0).content(), 3);
    String[] relevant = query.tags().get(RetrievalTarget.RELEVANT_TAG).split(",");

    assertThat(perfect.ids()).containsExactly(relevant);
    assertThat(index.reference(query)).isEqualTo(RetrievalTarget.context(perfect.ids(), perfect.passages()))
        .isEqualTo("Answer from these passages:\n[" + relevant[0] + "] Passage of " + relevant[0] + ".\n["
            + relevant[1] + "] Passage of " + relevant[1] + ".\n[" + relevant[2] + "] Passage of " + relevant[2]
            + ".\n");
  }

  @Test
  void aPromptWithoutGroundTruthIsRefused() {
    SimulatedVectorIndex index = SimulatedVectorIndex.builder().build();
    assertThatThrownBy(() -> index.reference(Prompt.user("not a query of the index")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(RetrievalTarget.RELEVANT_TAG);
  }
}
