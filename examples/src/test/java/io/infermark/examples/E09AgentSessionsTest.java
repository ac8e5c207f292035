package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.session.SessionTags;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.session.SessionSummary;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class E09AgentSessionsTest {

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(SimulatorConfig.builder()
      .engine(EngineProfile.llama8bH200()).serverErrors(0.03).build());

  @Test
  void agentSessionsReportCompletionTurnLatencyRetriesAndFidelity(Simulator simulator) {
    SimulatorConfig config = simulator.config();
    RunResult run = E09AgentSessions.run(simulator.baseUrl() + "/v1", config.model(), 16);
    SessionSummary s = RunSummary.of(run).sessions();

    assertThat(s.sessions()).isEqualTo(16);
    assertThat(s.outcomes().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(16);
    assertThat(s.outcomes().get(SessionSummary.Outcome.CUT)).isZero();
    assertThat(s.toolChainCompletionRate()).isPresent();
    // every request of the run is one record with every label of agent_turn_latency_ms
    assertThat(run.records()).allSatisfy(r -> assertThat(r.tags()).containsKeys(SessionTags.TOOL_CALL_DEPTH,
        SessionTags.RETRY_COUNT));
    assertThat(s.turnLatency()).isNotEmpty().allMatch(t -> t.toolCallDepth() == 2);
    // 3 % server errors over hundreds of calls: some are retried, and each retried call converged or ran out
    assertThat(s.retries().retriedCalls()).isPositive()
        .isEqualTo(s.retries().converged() + s.retries().exhausted());
    long failedCalls = run.records().stream().filter(r -> !r.succeeded()).count();
    assertThat(failedCalls).isPositive();
    assertThat(run.records().stream().filter(RequestRecord::succeeded)
        .filter(r -> !r.tags().get(SessionTags.RETRY_COUNT).equals("0"))).hasSize(s.retries().converged());
    assertThat(s.toolMillis()).isPositive();
    assertThat(s.modelMillis()).isPositive();
    // one probe per session: turn 4's question
    assertThat(s.fidelity().probes()).isEqualTo(16);
    assertThat(s.fidelity().truncatedCalls()).isZero();
    assertThat(s.ttftByTurn()).extracting(SessionSummary.ContextPoint::turn).startsWith(0);
  }
}
