package io.infermark.examples;

import static io.infermark.testkit.assertj.InfermarkAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.junit.WithSimulator;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Example 02, a latency budget in a JUnit test: {@code @WithSimulator} starts the embedded simulator for the
 * class (20 ms to the first token, 5 ms per further token, as configured below) and injects an
 * {@code OpenAiTarget} for it; the AssertJ assertions of {@code InfermarkAssertions} check the run against a
 * budget and explain a failure with the whole latency row.
 *
 * <p>Against a real server run it with {@code -Dinfermark.endpoint=http://host:8000/v1 -Dinfermark.model=NAME}:
 * the same test, unchanged. Run it here with
 * {@code mvn -B -ntp -pl examples -am -Dtest=E02LatencyBudgetTest -Dsurefire.failIfNoSpecifiedTests=false verify}.
 *
 * <p>The budget is a product decision, not a measurement: choose it for what your users tolerate. On a busy CI
 * runner the client may be CLIENT_BOUND; the assertions then weigh its error bound (its measurement floor):
 * a client's delays only add to what it measures, so a run within the budget passes, a run past it by more than
 * the error bound fails, and only a miss the error bound could explain is refused with the client's reasons.
 * Nothing is skipped (docs/testing-with-junit.md, "On a busy runner").
 */
@WithSimulator(timeToFirstTokenMillis = 20, interTokenIntervalMillis = 5, seed = 2)
class E02LatencyBudgetTest {

  /** The service's budget for the first token, at P99. */
  static final Duration TTFT_BUDGET = Duration.ofSeconds(2);

  private static RunResult checkout(OpenAiTarget target) {
    return Benchmark.target(target)
        .prompts(Prompt.user("Which delivery options does my basket allow?"))
        .params(GenerationParams.builder().maxTokens(32).ignoreEos(true).build())
        .load(LoadProfile.concurrency(8).requests(120).warmupRequests(8))
        .run();
  }

  @Test
  void checkoutAssistantMeetsItsLatencyBudget(OpenAiTarget target) {
    RunResult run = checkout(target);

    assertThat(run).hasNoFailures();
    assertThat(run).hasSucceeded(120);
    assertThat(run).errorRate().isLessThan(0.01);
    assertThat(run).ttft().p99().isLessThan(TTFT_BUDGET);
    // The server cannot answer sooner than it is configured to, and a client's delays only add to what it
    // measures, so no run, however busy its machine, may show less than the server's 20 ms: judged as measured.
    assertThat(run).ignoringClientHealth().ttft().p50().isGreaterThanOrEqualTo(Duration.ofMillis(20));
  }

  @Test
  void aBudgetTheServerCannotMeetFailsWithTheWholeLatencyRow(OpenAiTarget target) {
    RunResult run = checkout(target);

    // 20 ms is the server's own time to first token; no run can beat 1 ms.
    assertThatThrownBy(() -> assertThat(run).ignoringClientHealth().ttft().p99().isLessThan(Duration.ofMillis(1)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Expecting TTFT p99 < 1.000 ms")
        .hasMessageContaining("TTFT (n=120, ms)");
  }
}
