package io.infermark.attribution.intervention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.Benchmark;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.LatencyMetric;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * End to end: a server knob (the simulator's time to first token, 10 ms vs 70 ms, behind two
 * targets) switched in ABBA blocks of real benchmark runs; the median E2E change is about +60 ms and
 * its interval excludes zero.
 */
class SimulatorInterventionTest {

  private static SimulatorConfig ttft(long ms) {
    return SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(ms)).interTokenInterval(Duration.ofMillis(1))
        .build();
  }

  @Test
  void slowerTimeToFirstTokenRaisesTheMedianByItsDifference() {
    try (Simulator fast = Simulator.start(ttft(10)); Simulator slow = Simulator.start(ttft(70));
        OpenAiTarget a = OpenAiTarget.chat(fast.baseUrl() + "/v1", fast.config().model()).build();
        OpenAiTarget b = OpenAiTarget.chat(slow.baseUrl() + "/v1", slow.config().model()).build()) {
      // No pre-flight request: the servers' request counts below are the experiment's alone.
      Benchmark base = Benchmark.target(a).preflight(false).prompts(Prompt.user("Intervene."))
          .params(GenerationParams.builder().maxTokens(8).ignoreEos(true).build())
          .load(LoadProfile.concurrency(4).requests(12).warmupRequests(4));

      InterventionResult r = InterventionExperiment.of(base)
          .factor(Factor.of("ttft", x -> x.withTarget(a), x -> x.withTarget(b)))
          // The median, not P99: a P99 of 12 requests is their maximum, which one scheduling stall on a busy
          // CI machine can move by more than the effect.
          .statistic(BlockStatistic.percentile(LatencyMetric.E2E, 0.5))
          .repetitions(3).seed(1).build().run();
      LoggerFactory.getLogger(SimulatorInterventionTest.class).info("{}\n{}", r, r.toMarkdown());

      ChangeEstimate change = r.change();
      assertThat(r.statistic()).isEqualTo("p50 e2e_ms");
      assertThat(r.blocks()).hasSize(12);
      assertThat(change.lower()).isGreaterThan(0);
      assertThat(change.excludesZero()).isTrue();
      // 60 ms more to the first token, and nothing else differs.
      assertThat(change.estimate()).isBetween(45.0, 75.0);
      assertThat(r.shapley().value("ttft")).isEqualTo(change.estimate(), within(1e-9));
      assertThat(fast.requestCount()).isEqualTo(6 * 16);
      assertThat(slow.requestCount()).isEqualTo(6 * 16);
    }
  }
}
