package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.pipeline.Retrieval;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Seed 003 §4.2: an index degraded by writes over time (not by load) and recovered by retraining. */
class SimulatedVectorIndexWritesTest {

  @Test
  void writesCostRecallAtAFlatLoadUntilARebalance() {
    // G = 4, no drop by load, 0.0001 per document written, floor 0.25.
    SimulatedVectorIndex index = SimulatedVectorIndex.builder().relevantPerQuery(4).baseLatency(Duration.ZERO)
        .latencyPerInFlight(Duration.ZERO).recallDropPerInFlight(0).recallDropPerWrite(0.0001).seed(3).build();
    String q = "what does the archive say?";
    List<String> truth = index.relevant(q);

    Retrieval fresh = index.retrieve(q, 4);
    assertThat(fresh.ids()).containsExactlyElementsOf(truth);
    assertThat(fresh.annotations()).containsEntry(SimulatedVectorIndex.WRITES_TAG, "0");
    // 3,000 documents written: recall 1 − 0.3 = 0.7, round(4 × 0.7 = 2.8) = 3 of the 4 relevant documents.
    index.write(3_000);
    assertThat(index.recall(1)).isEqualTo(0.7, org.assertj.core.data.Offset.offset(1e-12));
    Retrieval degraded = index.retrieve(q, 4);
    assertThat(degraded.ids()).hasSize(4).containsAll(truth.subList(0, 3)).doesNotContain(truth.get(3));
    assertThat(degraded.annotations()).containsEntry(SimulatedVectorIndex.WRITES_TAG, "3000");
    // 10,000 more: the 0.25 floor, 1 of 4.
    index.write(10_000);
    assertThat(index.found(1)).isEqualTo(1);
    // Retraining (the seed's index.train) restores it.
    index.rebalance();
    assertThat(index.writes()).isZero();
    assertThat(index.retrieve(q, 4).ids()).containsExactlyElementsOf(truth);
    assertThatThrownBy(() -> index.write(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("documents must be >= 0");
  }

  @Test
  void withoutAWriteDropTheRecordsCarryNoWritesTag() {
    SimulatedVectorIndex index = SimulatedVectorIndex.builder().baseLatency(Duration.ZERO)
        .latencyPerInFlight(Duration.ZERO).build();
    index.write(5_000);
    assertThat(index.recall(1)).isEqualTo(1.0);
    assertThat(index.retrieve("q", 4).annotations()).doesNotContainKey(SimulatedVectorIndex.WRITES_TAG);
  }
}
