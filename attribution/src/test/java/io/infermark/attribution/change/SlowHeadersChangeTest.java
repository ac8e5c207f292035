package io.infermark.attribution.change;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.attribution.phase.LatencyPhase;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.testkit.simulator.Fault;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * End to end: the same 100-request run against a healthy simulator (A) and one that holds back the
 * response headers of five requests by 2 s (B). The Shapley decomposition of the P99 change over
 * the phases gives it to the time to first byte.
 */
class SlowHeadersChangeTest {

  private static final long[] SLOWED = {22, 41, 60, 79, 98};

  private static SimulatorConfig.Builder config() {
    return SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(20)).interTokenInterval(Duration.ofMillis(2));
  }

  @Test
  void p99MovedBySlowHeadersIsAttributedToWaiting() {
    try (Simulator healthy = Simulator.start(config().build());
        Simulator faulty = Simulator.start(config().faultOnRequests(Fault.slowHeaders(Duration.ofMillis(2000)), SLOWED)
            .build());
        OpenAiTarget a = OpenAiTarget.chat(healthy.baseUrl() + "/v1", healthy.config().model()).build();
        OpenAiTarget b = OpenAiTarget.chat(faulty.baseUrl() + "/v1", faulty.config().model()).build()) {
      // No pre-flight request: the server's seeded faults are per request number.
      Benchmark benchmark = Benchmark.target(a).preflight(false).prompts(Prompt.user("Why did P99 move?"))
          .params(GenerationParams.builder().maxTokens(16).ignoreEos(true).build())
          .load(LoadProfile.concurrency(10).requests(100).warmupRequests(10));
      RunResult runA = benchmark.run();
      RunResult runB = benchmark.withTarget(b).run();
      assertThat(runA.failureCount()).isZero();
      assertThat(runB.failureCount()).isZero();

      ComponentTable tableA = ComponentTable.phases(runA.records(), LatencyBasis.SERVICE_TIME, r -> "#" + r.index());
      ComponentTable tableB = ComponentTable.phases(runB.records(), LatencyBasis.SERVICE_TIME, r -> "#" + r.index());
      PercentileChange paired = ChangeDecomposition.builder().percentile(0.99).build().decompose(tableA, tableB);
      PercentileChange byRank = ChangeDecomposition.builder().percentile(0.99).coupling(Coupling.BY_RANK).build()
          .decompose(tableA, tableB);
      LoggerFactory.getLogger(SlowHeadersChangeTest.class).info("paired: {}\nby rank: {}", paired, byRank);

      String waiting = LatencyPhase.WAITING.label();
      // Run B's P99 is a held-back request (>= 2 s whatever the client does); run A's can be inflated by the
      // client's own stalls, up to about its measurement floor (its P99 was 321 ms once at load 14, where a healthy
      // one is about 60 ms): the held-back time is ten times that, so the waiting phase stays first.
      double clientNoise = 2 * runA.clientHealth().floorMillis();
      // The other phases of the requests at the P99 take the client's own stalls too, in both runs: the waiting
      // phase's share is bounded by what both runs measured of their client.
      double phaseNoise = 2 * Math.max(runA.clientHealth().floorMillis(), runB.clientHealth().floorMillis());
      for (PercentileChange change : new PercentileChange[] {paired, byRank}) {
        // Phases add up to E2E, so both coupled statistics are the runs' own P99 E2E (100 = 100 requests).
        assertThat(change.statisticA()).isCloseTo(p99E2e(runA), within(1e-6));
        assertThat(change.statisticB()).isCloseTo(p99E2e(runB), within(1e-6));
        assertThat(change.change()).isGreaterThan(1500 - clientNoise);
        assertThat(change.ranking().get(0)).isEqualTo(waiting);
        assertThat(change.contribution(waiting)).as("waiting's share, client floors %.1f / %.1f ms",
            runA.clientHealth().floorMillis(), runB.clientHealth().floorMillis())
            .isGreaterThan(0.75 * change.change() - phaseNoise);
        assertThat(change.efficiencyGap()).isCloseTo(0, within(1e-6));
      }
    }
  }

  private static double p99E2e(RunResult run) {
    return RunSummary.of(run).distribution(LatencyMetric.E2E).percentile(0.99).orElseThrow();
  }
}
