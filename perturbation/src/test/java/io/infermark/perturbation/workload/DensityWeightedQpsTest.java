package io.infermark.perturbation.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Density-weighted QPS end to end: the interleaved sample gives each cluster its share of the requests sent. */
class DensityWeightedQpsTest {

  private static List<Integer> clusterOrder(List<Prompt> prompts) {
    return prompts.stream().map(p -> Integer.parseInt(p.tags().get(LogWorkload.CLUSTER_TAG))).toList();
  }

  @Test
  void interleavingSpreadsTheQuotasBySmoothWeightedRoundRobin() {
    // size weights 3/7, 2/7, 2/7: quotas 3, 2, 2 of 7
    LogWorkload w = LogWorkload.of(LogWorkloadTest.LOG, QueryClustering.defaults());

    assertThat(clusterOrder(w.interleaved(7))).containsExactly(0, 1, 2, 0, 1, 2, 0);
    assertThat(w.interleaved(7)).containsExactlyInAnyOrderElementsOf(w.sample(7));
  }

  @Test
  void eachClusterGetsItsDensityWeightedShareOfTheRequestsSentToTheSimulator() {
    LogWorkload w = LogWorkload.of(LogWorkloadTest.LOG, DensityWeightedClustering.defaults().k(3).seed(1));
    int n = 60;
    int[] quota = w.quotas(n);
    List<Prompt> prompts = w.interleaved(n);
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(2))
        .interTokenInterval(Duration.ofMillis(1)).build();
    RunResult run;
    try (Simulator sim = Simulator.start(config);
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()).build()) {
      run = Benchmark.target(target).prompts(prompts)
          .params(GenerationParams.builder().maxTokens(4).ignoreEos(true).build())
          .load(LoadProfile.poisson(200).requests(n).seed(3)).run();
    }

    List<RequestRecord> sent = run.measured().stream().sorted(Comparator.comparingLong(RequestRecord::index)).toList();
    assertThat(sent).hasSize(n).allMatch(RequestRecord::succeeded);
    for (QueryCluster c : w.clusters()) {
      String id = Integer.toString(c.id());
      long count = sent.stream().filter(r -> id.equals(r.tags().get(LogWorkload.CLUSTER_TAG))).count();
      assertThat(count).as("cluster %s", id).isEqualTo(quota[c.id()]);
      // the cluster's share of every prefix of the schedule stays within one request of its weight
      int seen = 0;
      for (int k = 0; k < n; k++) {
        if (id.equals(sent.get(k).tags().get(LogWorkload.CLUSTER_TAG))) {
          seen++;
        }
        assertThat(Math.abs(seen - (k + 1) * quota[c.id()] / (double) n)).as("cluster %s after %d", id, k + 1)
            .isLessThan(1.0);
      }
    }
  }
}
