package io.infermark.testkit.assertj;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.HealthVerdict;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.Distribution;
import io.infermark.testkit.simulator.Fault;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
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
    // These tests check the assertions, not this machine: a starved machine's run is judged all the same
    // (refusing client-bound runs is tested on hand-made health below).
    InfermarkAssertions.assertThat(clean).hasNoFailures().hasSucceeded(10);
    InfermarkAssertions.assertThat(clean).ignoringClientHealth().ttft().p50()
        .isGreaterThanOrEqualTo(Duration.ofMillis(30)).isLessThan(Duration.ofSeconds(5));
    InfermarkAssertions.assertThat(clean).ignoringClientHealth().ttft().min()
        .isBetween(Duration.ofMillis(30), Duration.ofSeconds(5));
    InfermarkAssertions.assertThat(clean).ignoringClientHealth().itl().hasCount(70);
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
    assertThatThrownBy(() -> InfermarkAssertions.assertThat(clean).ignoringClientHealth().ttft().p99()
        .isLessThan(Duration.ofMillis(1)))
        .hasMessageStartingWith("Expecting TTFT p99 < 1.000 ms but was ")
        .hasMessageContaining("TTFT (n=10, ms): min ");
    assertThatThrownBy(() -> InfermarkAssertions.assertThat(Distribution.empty(), "E2E").p50())
        .hasMessage("Expecting E2E p50 but E2E has no values (no successful request defined it)");
  }

  private static final ClientHealth BOUND = new ClientHealth(HealthVerdict.CLIENT_BOUND,
      List.of("hiccup p99 12.3 ms > 10 ms: the client's threads could not run on time"), 12_300_000, Optional.empty());
  private static final ClientHealth DEGRADED = new ClientHealth(HealthVerdict.DEGRADED,
      List.of("process CPU 1.50 of 2 cores (75 %) > 70 %: the client's threads may wait for a core"), 2_000_000,
      Optional.empty());

  @Test
  void aClientBoundRunPassesWithinTheLimitAndFailsBeyondItsErrorBound() {
    RunResult starved = clean.withClientHealth(BOUND);

    // The client's delays only add to TTFT: a run within the budget is within it, however starved its client.
    InfermarkAssertions.assertThat(starved).ttft().p99().isLessThan(Duration.ofSeconds(5));
    // The server's TTFT is 30 ms: a 1 ms budget is missed by far more than the 12.3 ms error bound.
    assertThatThrownBy(() -> InfermarkAssertions.assertThat(starved).ttft().p50().isLessThan(Duration.ofMillis(1)))
        .hasMessageStartingWith("Expecting TTFT p50 < 1.000 ms but was ")
        .hasMessageContaining("ms (past the limit by more than the client's error bound of 12.300 ms)")
        .hasMessageContaining("client CLIENT_BOUND, measurement floor 12.300 ms: hiccup p99 12.3 ms > 10 ms");
    assertThatThrownBy(() -> InfermarkAssertions.assertThat(starved).hasTrustworthyClient()).hasMessage(
        "Expecting a client that kept up but the run was CLIENT_BOUND: hiccup p99 12.3 ms > 10 ms: the client's "
            + "threads could not run on time (measurement floor 12.300 ms)");
    // Counting failures does not depend on the client's timing.
    InfermarkAssertions.assertThat(starved).hasNoFailures().hasSucceeded(10);
  }

  @Test
  void aClientBoundRunIsRefusedOnlyWhereItsErrorBoundCouldExplainTheMiss() {
    // 1..100 ms: p99 = 99.01 ms (numpy); error bound 12.3 ms, so the server's own p99 is in [86.71, 99.01].
    DistributionAssert bound = new DistributionAssert(
        Distribution.of(IntStream.rangeClosed(1, 100).asDoubleStream().toArray()), "TTFT", "",
        Optional.of(new LatencyAssert.ClientBound(12.3, "hiccup p99 12.3 ms > 10 ms")));

    bound.p99().isLessThan(Duration.ofMillis(100)).isGreaterThanOrEqualTo(Duration.ofMillis(80))
        .isBetween(Duration.ofMillis(80), Duration.ofMillis(100));
    assertThatThrownBy(() -> bound.p99().isLessThan(Duration.ofMillis(90)))
        .hasMessageStartingWith("Refusing to judge TTFT p99 < 90.000 ms: it was 99.010 ms, and the client's error "
            + "bound of 12.300 ms (its measurement floor) could put it on either side of the limit: the run was "
            + "CLIENT_BOUND: hiccup p99 12.3 ms > 10 ms.");
    assertThatThrownBy(() -> bound.p99().isLessThan(Duration.ofMillis(80)))
        .hasMessageStartingWith("Expecting TTFT p99 < 80.000 ms but was 99.010 ms (past the limit by more than the "
            + "client's error bound of 12.300 ms)");
    // Below a lower limit as measured is below it for the server too: a plain failure.
    assertThatThrownBy(() -> bound.p99().isGreaterThan(Duration.ofMillis(100)))
        .hasMessageStartingWith("Expecting TTFT p99 > 100.000 ms but was 99.010 ms");
    assertThatThrownBy(() -> bound.p99().isGreaterThanOrEqualTo(Duration.ofMillis(90)))
        .hasMessageStartingWith("Refusing to judge TTFT p99 >= 90.000 ms: it was 99.010 ms");
    assertThatThrownBy(() -> bound.p99().isBetween(Duration.ofMillis(90), Duration.ofMillis(100)))
        .hasMessageStartingWith("Refusing to judge TTFT p99 between 90.000 ms and 100.000 ms");
    assertThatThrownBy(() -> bound.p99().isBetween(Duration.ofMillis(50), Duration.ofMillis(90)))
        .hasMessageStartingWith("Refusing to judge TTFT p99 between 50.000 ms and 90.000 ms");
    assertThatThrownBy(() -> bound.p99().isBetween(Duration.ofMillis(50), Duration.ofMillis(80)))
        .hasMessageStartingWith("Expecting TTFT p99 between 50.000 ms and 80.000 ms but was 99.010 ms (past the "
            + "limit by more than");
  }

  @Test
  void ignoringClientHealthJudgesAnywayAndFailuresStillNameIt() {
    RunResult starved = clean.withClientHealth(BOUND);

    InfermarkAssertions.assertThat(starved).ignoringClientHealth().ttft().p50()
        .isGreaterThanOrEqualTo(Duration.ofMillis(30));
    assertThatThrownBy(() -> InfermarkAssertions.assertThat(starved).ignoringClientHealth().ttft().p50()
        .isLessThan(Duration.ofMillis(1)))
        .hasMessageStartingWith("Expecting TTFT p50 < 1.000 ms but was ")
        .hasMessageEndingWith("client CLIENT_BOUND, measurement floor 12.300 ms: hiccup p99 12.3 ms > 10 ms: the "
            + "client's threads could not run on time");
  }

  @Test
  void aDegradedRunIsJudgedAndItsFailuresCarryTheFloor() {
    RunResult noisy = clean.withClientHealth(DEGRADED);

    InfermarkAssertions.assertThat(noisy).hasTrustworthyClient().ttft().p50()
        .isGreaterThanOrEqualTo(Duration.ofMillis(30));
    assertThatThrownBy(() -> InfermarkAssertions.assertThat(noisy).ttft().p50().isLessThan(Duration.ofMillis(1)))
        .hasMessageContaining(String.format("%n  client DEGRADED, measurement floor 2.000 ms: process CPU 1.50 of 2 "
            + "cores (75 %%) > 70 %%"));
  }
}
