package io.infermark.testkit.assertj;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.target.OpenAiTarget;
import io.infermark.metrics.Distribution;
import io.infermark.testkit.simulator.Fault;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class InfermarkAssertionsTest {

  private static RunResult clean;
  private static RunResult faulty;

  @BeforeAll
  static void run() {
    clean = runAgainst(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(30))
        .interTokenInterval(Duration.ofMillis(1)).build());
    faulty = runAgainst(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
        .interTokenInterval(Duration.ZERO).faultOnRequests(Fault.serverError(), 1, 4)
        .faultOnRequests(Fault.disconnect(2), 7).build());
  }

  private static RunResult runAgainst(SimulatorConfig config) {
    try (Simulator sim = Simulator.start(config);
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl(), config.model()).build()) {
      return Benchmark.target(target).prompts(Prompt.user("assert me"))
          .params(GenerationParams.builder().maxTokens(8).ignoreEos(true).build())
          .load(LoadProfile.concurrency(1).requests(10)).run();
    }
  }

  @Test
  void passingAssertionsChainOverARun() {
    InfermarkAssertions.assertThat(clean).hasNoFailures().hasSucceeded(10);
    InfermarkAssertions.assertThat(clean).ttft().p50().isGreaterThanOrEqualTo(Duration.ofMillis(30))
        .isLessThan(Duration.ofSeconds(5));
    InfermarkAssertions.assertThat(clean).ttft().min().isBetween(Duration.ofMillis(30), Duration.ofSeconds(5));
    InfermarkAssertions.assertThat(clean).itl().hasCount(70);
    InfermarkAssertions.assertThat(clean).errorRate().isZero();
    InfermarkAssertions.assertThat(clean).outputTokensPerSecond().isGreaterThan(0);
    InfermarkAssertions.assertThat(faulty).errorRate().isEqualTo(0.3);
    InfermarkAssertions.assertThat(faulty).hasFailures(io.infermark.core.capture.ErrorCategory.HTTP_STATUS, 2)
        .hasFailures(io.infermark.core.capture.ErrorCategory.RESET, 1).hasSucceeded(7);
  }

  @Test
  void aFailedPercentileShowsTheWholeRow() {
    Distribution oneToHundred = Distribution.of(IntStream.rangeClosed(1, 100).asDoubleStream().toArray());

    // numpy: np.percentile(range(1, 101), [50, 90, 95, 99, 99.9]) = 50.5, 90.1, 95.05, 99.01, 99.901
    assertThatThrownBy(() -> InfermarkAssertions.assertThat(oneToHundred, "TTFT").p99()
        .isLessThan(Duration.ofMillis(50)))
        .isInstanceOf(AssertionError.class)
        .hasMessage(String.format("Expecting TTFT p99 < 50.000 ms but was 99.010 ms%n"
            + "  TTFT (n=100, ms): min 1.000  mean 50.500  p50 50.500  p90 90.100  p95 95.050  p99 99.010  "
            + "p99.9 99.901*  max 100.000  (* fewer samples than the percentile needs to be reliable)"));
  }

  @Test
  void failureAndRateMessagesSayWhatFailed() {
    assertThatThrownBy(() -> InfermarkAssertions.assertThat(faulty).hasNoFailures())
        .hasMessage("Expecting no failed requests but 3 of 10 measured failed: {HTTP_STATUS=2, RESET=1}");
    assertThatThrownBy(() -> InfermarkAssertions.assertThat(faulty).errorRate().isLessThan(0.01))
        .hasMessageContaining("error rate = 3 failed / 10 measured = 0.3000; failures {HTTP_STATUS=2, RESET=1}");
    assertThatThrownBy(() -> InfermarkAssertions.assertThat(clean).ttft().p99().isLessThan(Duration.ofMillis(1)))
        .hasMessageStartingWith("Expecting TTFT p99 < 1.000 ms but was ")
        .hasMessageContaining("TTFT (n=10, ms): min ");
    assertThatThrownBy(() -> InfermarkAssertions.assertThat(Distribution.empty(), "E2E").p50())
        .hasMessage("Expecting E2E p50 but E2E has no values (no successful request defined it)");
  }
}
