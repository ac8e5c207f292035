package io.infermark.testkit.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.session.SessionTags;
import io.infermark.core.session.SessionWorkload;
import io.infermark.core.session.SyntheticSessions;
import io.infermark.metrics.session.SessionOutcomes;
import io.infermark.testkit.simulator.Fault;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seed 002 §2.5's delay-injection test ("基于真实用户会话轨迹的延迟注入测试实践"): the same sessions without and with
 * the seed's injected delay ({@code Math.max(100, baselineMs * 1.8 + jitter)}, the simulator's
 * {@code Fault.slowdown(1.8, 200 ms)}), judged by its two outcomes, first-screen completion and session
 * interruption ({@link SessionOutcomes}).
 */
class DelayInjectionScenarioTest {

  private static final Logger LOG = LoggerFactory.getLogger(DelayInjectionScenarioTest.class);
  private static final Duration LIMIT = Duration.ofMillis(90);
  /** The requests (arrival order, one session at a time, 3 turns each) that suffer the injected delay. */
  private static final long[] INJECTED = {0, 7, 14, 22};

  private static RunResult run(SimulatorConfig config, boolean injecting) {
    try (Simulator sim = Simulator.start(config);
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()).build()) {
      SyntheticSessions source = SyntheticSessions.builder().turns(3).userTokens(16).seed(2).build();
      RunResult run = Benchmark.target(target).preflight(false).workload(SessionWorkload.builder(source)
              .maxSessions(10).build())
          .params(GenerationParams.builder().maxTokens(8).ignoreEos(true).build())
          .load(LoadProfile.concurrency(1).duration(Duration.ofMinutes(2))).run();
      for (RequestRecord r : run.records()) {
        // the simulator's own account of which requests it delayed
        boolean delayed = sim.timeline(r.requestId()).orElseThrow().fault().isPresent();
        assertThat(delayed).as("request %d", r.index()).isEqualTo(injecting && injected(r));
      }
      return run;
    }
  }

  private static boolean injected(RequestRecord r) {
    for (long i : INJECTED) {
      if (r.index() == i) {
        return true;
      }
    }
    return false;
  }

  /** Sessions with a turn (each one call here) slower than the limit, measured from its intended time. */
  private static Set<String> slowSessions(RunResult run) {
    Set<String> slow = new HashSet<>();
    for (RequestRecord r : run.records()) {
      if (r.sendNanos() + r.endOffsetNanos() - r.intendedNanos() > LIMIT.toNanos()) {
        slow.add(r.tags().get(SessionTags.SESSION));
      }
    }
    return slow;
  }

  @Test
  void injectedDelaysInterruptTheSessionsTheyHitAndCostTheFirstScreensTheyDelay() {
    SimulatorConfig.Builder base = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(1)).seed(3);
    // A cold JVM spends hundreds of milliseconds on its first requests: warm up on a simulator of its own, so
    // that the runs below see the server's delays (their sequence numbers start at 0).
    run(base.build(), false);
    RunResult clean = run(base.build(), false);
    RunResult delayed = run(base.faultOnRequests(Fault.slowdown(1.8, Duration.ofMillis(200)), INJECTED).build(), true);

    for (RunResult run : List.of(clean, delayed)) {
      assertThat(run.records()).hasSize(30).allMatch(RequestRecord::succeeded);
      SessionOutcomes o = SessionOutcomes.of(run.records(), LIMIT, LIMIT);
      Set<String> slow = slowSessions(run);
      assertThat(o.sessions()).isEqualTo(10);
      assertThat(o.cut()).isZero();
      // Every session with a turn over the patience is interrupted, and no other.
      assertThat(o.interrupted()).isEqualTo(slow.size());
      long slowFirst = run.records().stream().filter(r -> "0".equals(r.tags().get(SessionTags.TURN))
          && r.sendNanos() + r.endOffsetNanos() - r.intendedNanos() > LIMIT.toNanos()).count();
      assertThat(o.firstScreenMissed()).isEqualTo(slowFirst);
    }
    SessionOutcomes withDelay = SessionOutcomes.of(delayed.records(), LIMIT, LIMIT);
    // Each injected request answers no sooner than 100 ms after it arrived (the seed's floor), above the 90 ms
    // patience: requests 0, 7, 14 and 22 are in sessions 0 (turn 0: its first screen), 2, 4 and 7.
    Set<String> hit = new HashSet<>();
    for (RequestRecord r : delayed.records()) {
      if (injected(r)) {
        assertThat(r.sendNanos() + r.endOffsetNanos() - r.intendedNanos()).isGreaterThanOrEqualTo(100_000_000L);
        hit.add(r.tags().get(SessionTags.SESSION));
      }
    }
    assertThat(hit).hasSize(4);
    assertThat(slowSessions(delayed)).containsAll(hit);
    assertThat(withDelay.interrupted()).isGreaterThanOrEqualTo(4);
    assertThat(withDelay.firstScreenMissed()).isGreaterThanOrEqualTo(1);
    SessionOutcomes without = SessionOutcomes.of(clean.records(), LIMIT, LIMIT);
    LOG.info("seed 002 §2.5, limits 90 ms: without injection first screen {}, interruption {}; with injection on 4 of "
        + "30 requests first screen {}, interruption {}", without.firstScreenCompletionRate().getAsDouble(),
        without.interruptionRate().getAsDouble(), withDelay.firstScreenCompletionRate().getAsDouble(),
        withDelay.interruptionRate().getAsDouble());
  }
}
