package io.infermark.attribution.phase;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Fault;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * End to end: five of 100 measured requests get their response headers 200 ms late from the simulator; the
 * phase split of the tail names the time to first byte ({@link LatencyPhase#WAITING}) as the cause.
 */
class SlowHeadersPhaseTest {

  private static final long[] SLOWED = {12, 31, 50, 69, 88};

  @RegisterExtension
  static SimulatorExtension simulator = SimulatorExtension.withConfig(SimulatorConfig.builder()
      .timeToFirstToken(Duration.ofMillis(20)).interTokenInterval(Duration.ofMillis(2))
      .faultOnRequests(Fault.slowHeaders(Duration.ofMillis(200)), SLOWED).build());

  @Test
  void slowResponseHeadersRankWaitingFirstInTheTail(OpenAiTarget target) {
    // No pre-flight request: the server's seeded faults are per request number.
    RunResult run = Benchmark.target(target).preflight(false).prompts(Prompt.user("Why is the tail slow?"))
        .params(GenerationParams.builder().maxTokens(16).ignoreEos(true).build())
        // Warmup opens the ten connections, so no cold start competes with the slowed requests for the tail.
        .load(LoadProfile.concurrency(10).requests(100).warmupRequests(10)).run();
    assertThat(run.failureCount()).isZero();

    PhaseDecomposition phases = PhaseDecomposition.of(run, LatencyBasis.SERVICE_TIME);
    PhaseBreakdown p99 = phases.atOrAbovePercentile(0.99);
    PhaseBreakdown p95 = phases.atOrAbovePercentile(0.95);

    assertThat(p99.ranking().get(0)).isEqualTo(LatencyPhase.WAITING);
    assertThat(p99.meanMillis(LatencyPhase.WAITING)).isGreaterThanOrEqualTo(195.0);
    assertThat(p99.share(LatencyPhase.WAITING)).isGreaterThan(0.5);
    // P95 of 100 requests leaves exactly the five slowed ones at or above it.
    assertThat(p95.requestCount()).isEqualTo(SLOWED.length);
    assertThat(p95.ranking().get(0)).isEqualTo(LatencyPhase.WAITING);
    // The five slowed requests alone put 5 x 200 ms / 100 = 10 ms into the mean wait.
    assertThat(phases.mean().meanMillis(LatencyPhase.WAITING)).isGreaterThanOrEqualTo(10.0)
        .isLessThan(p99.meanMillis(LatencyPhase.WAITING) / 4);
    assertThat(phases.totals().sortedValuesMillis())
        .containsExactly(RunSummary.of(run).distribution(LatencyMetric.E2E).sortedValuesMillis());
    LoggerFactory.getLogger(SlowHeadersPhaseTest.class).info("slow headers:\n{}", phases.table(0.95, 0.99));
  }
}
