package io.infermark.testkit.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.StageResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.load.UserRamp;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.StreamSource;
import io.infermark.core.workload.Workload;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A Locust-style user ramp against the simulator, split into per-stage results. */
class UserRampScenarioTest {

  private static final SimulatorConfig CONFIG = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(10))
      .interTokenInterval(Duration.ofMillis(1)).build();

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(CONFIG);

  private static final Logger LOG = LoggerFactory.getLogger(UserRampScenarioTest.class);
  private static final long MS = 1_000_000L;

  /** Tags each request with the closed-loop stream (user) that sent it. */
  private static final class PerUser implements Workload {
    @Override
    public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
      return new RequestSpec(Prompt.user("hello"), defaults);
    }

    @Override
    public StreamSource stream(int stream) {
      return (index, elapsed, defaults) ->
          new RequestSpec(Prompt.user("hello").withTag("user", Integer.toString(stream)), defaults);
    }
  }

  @Test
  void usersSendOnlyWhileTheRampCountsThemAndEachStageSummarisesItsOwnRequests(Simulator sim) {
    // 0 -> 4 users at 10/s (400 ms: joins at 0, 100, 200, 300 ms), hold 600 ms, 4 -> 0 at 10/s
    // (400 ms from 1000 ms: leaves at 1000, 1100, 1200, 1300 ms, user 3 first).
    UserRamp ramp = UserRamp.startingAt(0).rampTo(4, 10).hold(Duration.ofMillis(600)).rampTo(0, 10);
    try (OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", CONFIG.model()).build()) {
      // A cold JVM spends hundreds of milliseconds loading the client's and server's classes on the
      // first requests; a short run first keeps that out of the ramp's stages.
      Benchmark.target(target).prompts(Prompt.user("warm up")).params(GenerationParams.builder().maxTokens(8).build())
          .load(LoadProfile.concurrency(4).requests(16)).run();
      RunResult run = Benchmark.target(target).workload(new PerUser())
          .params(GenerationParams.builder().maxTokens(8).ignoreEos(true).build())
          .load(LoadProfile.users(ramp)).run();

      assertThat(run.records()).isNotEmpty().allMatch(RequestRecord::succeeded);
      long[] joins = {0, 100 * MS, 200 * MS, 300 * MS};
      long[] leaves = {1300 * MS, 1200 * MS, 1100 * MS, 1000 * MS};
      for (RequestRecord r : run.records()) {
        int user = Integer.parseInt(r.tags().get("user"));
        // A user issues only between its join and its removal (issue time = intended time).
        assertThat(r.intendedNanos()).as("user %d request %d", user, r.index())
            .isGreaterThanOrEqualTo(joins[user]).isLessThan(leaves[user]);
      }
      // Each user is a closed loop: its requests never overlap.
      for (int user = 0; user < 4; user++) {
        String u = Integer.toString(user);
        List<RequestRecord> mine = run.records().stream().filter(r -> u.equals(r.tags().get("user"))).toList();
        assertThat(mine).as("user %d sent", user).isNotEmpty();
        for (int i = 1; i < mine.size(); i++) {
          RequestRecord prev = mine.get(i - 1);
          assertThat(mine.get(i).sendNanos()).isGreaterThanOrEqualTo(prev.sendNanos() + prev.endOffsetNanos());
        }
      }

      List<StageResult> stages = StageResult.split(run);
      assertThat(stages).hasSize(3);
      assertThat(stages.stream().mapToInt(s -> s.result().records().size()).sum()).isEqualTo(run.records().size());
      for (StageResult s : stages) {
        for (RequestRecord r : s.result().records()) {
          assertThat(r.intendedNanos()).isLessThan(s.stage().endNanos());
          assertThat(r.intendedNanos()).isGreaterThanOrEqualTo(s.stage().index() == 0 ? 0 : s.stage().startNanos());
        }
        if (!s.result().records().isEmpty()) {
          RunSummary summary = RunSummary.of(s.result());
          // TTFT is at least the simulator's 10 ms in every stage.
          assertThat(summary.distribution(LatencyMetric.TTFT).min().getAsDouble()).isGreaterThanOrEqualTo(10.0);
          LOG.info("{}: {} requests, TTFT p50 {} ms", s.stage(), s.result().records().size(),
              summary.distribution(LatencyMetric.TTFT).p50().getAsDouble());
        }
      }
    }
  }
}
