package io.infermark.perturbation.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import io.infermark.core.request.Prompt;
import io.infermark.perturbation.PerturbationSpace;
import io.infermark.perturbation.design.Designs;
import io.infermark.perturbation.operator.Typos;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogWorkloadTest {

  static final List<String> LOG = List.of("How do I reset my password?", "how do i reset my password",
      "How can I reset my password?", "What is the weather in Paris?", "what's the weather in paris today",
      "Cancel my subscription", "Please cancel my subscription now");

  @Test
  void jaccardOfTrigramsIsExact() {
    QueryClustering c = QueryClustering.defaults();
    // {abc, bcd} vs {abc, bce}
    assertThat(c.similarity("abcd", "abce")).isCloseTo(1 / 3.0, offset(1e-12));
    // python: len(A & B) / len(A | B) over trigrams of the normalised texts
    assertThat(c.similarity(LOG.get(0), LOG.get(2))).isCloseTo(0.69, offset(0.005));
    assertThat(c.similarity(LOG.get(0), LOG.get(1))).isEqualTo(1.0);
    assertThat(QueryClustering.normalize("  What's  THE weather?! ")).isEqualTo("what s the weather");
  }

  @Test
  void similarQueriesClusterAndRepresentativesAreMedoids() {
    List<QueryCluster> clusters = QueryClustering.defaults().cluster(LOG);
    assertThat(clusters).hasSize(3);
    assertThat(clusters.get(0).members()).containsExactly(0, 1, 2);
    assertThat(clusters.get(1).members()).containsExactly(3, 4);
    assertThat(clusters.get(2).members()).containsExactly(5, 6);
    assertThat(clusters.get(0).representative()).isEqualTo(LOG.get(0));
    assertThat(clusters.get(0).weight()).isCloseTo(3 / 7.0, offset(1e-12));
    // At 0.8 only the two identical password queries stay together (0.69, 0.742, 0.645 < 0.8).
    assertThat(QueryClustering.defaults().threshold(0.8).cluster(LOG)).hasSize(6);
  }

  @Test
  void samplesFollowClusterWeightsByLargestRemainder() {
    LogWorkload w = LogWorkload.of(LOG, QueryClustering.defaults());
    assertThat(w.quotas(7)).containsExactly(3, 2, 2);
    // 10 x (3/7, 2/7, 2/7) = 4.29, 2.86, 2.86 -> 4, 3, 3
    assertThat(w.quotas(10)).containsExactly(4, 3, 3);
    List<Prompt> sample = w.sample(10);
    assertThat(sample).hasSize(10);
    assertThat(sample.stream().filter(p -> p.tags().get("cluster").equals("0"))).hasSize(4);
    assertThat(sample.get(0).tags()).containsEntry("class", "cluster-0");
  }

  @Test
  void perturbedSamplesCarryClusterClassAndLevels() {
    LogWorkload w = LogWorkload.of(LOG, QueryClustering.defaults());
    List<Prompt> prompts = w.perturbed(7, p -> PerturbationSpace.builder(p).dimension("typos", Typos.budgets(0, 2))
        .build(), Designs.fullFactorial(2), 1);
    assertThat(prompts).hasSize(7);
    assertThat(prompts.get(1).tags()).containsEntry("level.typos", "1").containsEntry("class", "cluster-0")
        .containsEntry("variant", "1");
    assertThat(prompts.get(1).text()).isNotEqualTo(LOG.get(0));
    assertThat(prompts.get(0).text()).isEqualTo(LOG.get(0));
    assertThat(w.perturbed(7, p -> PerturbationSpace.builder(p).dimension("typos", Typos.budgets(0, 2)).build(),
        Designs.fullFactorial(2), 1)).isEqualTo(prompts);
  }

  @Test
  void badInputIsRejected() {
    assertThatThrownBy(() -> QueryClustering.defaults().cluster(List.of())).hasMessageContaining("no queries");
    assertThatThrownBy(() -> QueryClustering.defaults().cluster(List.of("a", " "))).hasMessageContaining("query 1");
    assertThatThrownBy(() -> QueryClustering.defaults().threshold(0)).hasMessageContaining("was 0.0");
  }
}
