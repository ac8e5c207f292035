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
import java.util.Arrays;
import java.util.List;
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
      // Run B's P99 is a held-back request: with 5 of its 100 requests held 2 s after they arrived, its two slowest
      // took at least 2 s from their sends whatever the client did, so its P99 (linear, between them) is too. What
      // else moved is each request's own: switching phase p from A's value to B's moves every coupled request's
      // E2E by at most delta(p), the most that phase differs between two coupled requests (by rank: between any
      // two), and a percentile by no more than every value moved, so p's Shapley value (an average of such moves)
      // is within +-delta(p), and waiting's, since all add up to the change, is at least the change less the others'
      // deltas. Exact, where the runs' client floors (whole-run p99s) were exceeded by one stalled request.
      for (PercentileChange change : new PercentileChange[] {paired, byRank}) {
        // Phases add up to E2E, so both coupled statistics are the runs' own P99 E2E (100 = 100 requests).
        assertThat(change.statisticA()).isCloseTo(p99E2e(runA), within(1e-6));
        assertThat(change.statisticB()).isCloseTo(p99E2e(runB), within(1e-6));
        assertThat(change.statisticB()).as("run B's P99 E2E, ms").isGreaterThanOrEqualTo(2000);
        assertThat(change.efficiencyGap()).isCloseTo(0, within(1e-6));
        double others = 0;
        double largestOther = 0;
        for (String component : change.components()) {
          double delta = delta(tableA, tableB, component, change.coupling());
          if (!component.equals(waiting)) {
            assertThat(Math.abs(change.contribution(component))).as("%s of %s", component, change)
                .isLessThanOrEqualTo(delta + 1e-6);
            others += delta;
            largestOther = Math.max(largestOther, delta);
          }
        }
        double waitingAtLeast = change.change() - others;
        assertThat(change.contribution(waiting)).as("waiting's share, the other phases' deltas %.1f ms", others)
            .isGreaterThanOrEqualTo(waitingAtLeast - 1e-6);
        LoggerFactory.getLogger(SlowHeadersChangeTest.class).info("{}: waiting {} >= {} ms (others' deltas {} ms, "
            + "largest {} ms); client floors A {} ms, B {} ms", change.coupling(), change.contribution(waiting),
            waitingAtLeast, others, largestOther, runA.clientHealth().floorMillis(), runB.clientHealth().floorMillis());
        if (waitingAtLeast > largestOther) {
          assertThat(change.ranking().get(0)).isEqualTo(waiting); // then no other phase can come first
        }
      }
    }
  }

  /**
   * The most {@code component} differs between a request of A and its partner in B, ms: paired, between the rows
   * with one key; by rank, between any row of A and any of B (a bound whatever the ranks pair).
   */
  private static double delta(ComponentTable a, ComponentTable b, String component, Coupling coupling) {
    double[] x = a.column(component);
    double[] y = b.column(component);
    if (coupling == Coupling.PAIRED) {
      java.util.Map<String, Double> byKey = new java.util.HashMap<>();
      List<String> keysB = b.keys().orElseThrow();
      for (int i = 0; i < y.length; i++) {
        byKey.put(keysB.get(i), y[i]);
      }
      List<String> keysA = a.keys().orElseThrow();
      double most = 0;
      for (int i = 0; i < x.length; i++) {
        Double partner = byKey.get(keysA.get(i));
        if (partner != null) {
          most = Math.max(most, Math.abs(partner - x[i]));
        }
      }
      return most;
    }
    double max = Math.max(Arrays.stream(x).max().orElse(0), Arrays.stream(y).max().orElse(0));
    double min = Math.min(Arrays.stream(x).min().orElse(0), Arrays.stream(y).min().orElse(0));
    return max - min;
  }

  private static double p99E2e(RunResult run) {
    return RunSummary.of(run).distribution(LatencyMetric.E2E).percentile(0.99).orElseThrow();
  }
}
