package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TestRuns;
import io.infermark.metrics.session.SessionSummaryFixtures;
import org.junit.jupiter.api.Test;

class SessionsJsonTest {

  @Test
  void sessionRunsJsonCarriesThePerSessionMetrics() throws Exception {
    JsonNode json = new ObjectMapper().readTree(JsonReport.toJson(RunSummary.of(TestRuns.run(
        SessionSummaryFixtures.records()))));
    JsonNode s = json.get("sessions");
    assertThat(s.get("sessions").asInt()).isEqualTo(3);
    assertThat(s.get("completed").asInt()).isEqualTo(1);
    assertThat(s.get("failed").asInt()).isEqualTo(1);
    assertThat(s.get("cut").asInt()).isEqualTo(1);
    assertThat(s.get("tool_chain_completion_rate").asDouble()).isEqualTo(0.5);
    assertThat(s.get("session_e2e_ms").get("p50").asDouble()).isEqualTo(500.0);
    JsonNode turns = s.get("agent_turn_latency_ms");
    assertThat(turns).hasSize(3);
    assertThat(turns.get(2).get("tool_call_depth").asInt()).isEqualTo(1);
    assertThat(turns.get(2).get("retry_count").asInt()).isEqualTo(1);
    assertThat(turns.get(2).get("p50").asDouble()).isEqualTo(200.0);
    assertThat(s.get("time_ms").get("tools").asDouble()).isEqualTo(90.0);
    assertThat(s.get("fidelity").get("memory_decay_rate").asDouble()).isEqualTo(0.5);
    assertThat(s.get("ttft_ms_per_1k_context_tokens").asDouble()).isEqualTo(200.0, org.assertj.core.data.Offset
        .offset(1e-9));
  }

  @Test
  void runWithoutSessionsHasNoSessionsObject() throws Exception {
    JsonNode json = new ObjectMapper().readTree(JsonReport.toJson(RunSummary.of(TestRuns.mixedRun())));
    assertThat(json.has("sessions")).isFalse();
  }
}
