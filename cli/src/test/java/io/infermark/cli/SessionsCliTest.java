package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.InfermarkCliTest.Outcome;
import io.infermark.testkit.junit.InjectSimulator;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench} with session workloads against the simulator: trace files, the agent dataset, the summaries. */
class SessionsCliTest {

  @TempDir
  Path dir;

  @RegisterExtension // a fresh simulator per test: a test counts the requests it received
  final SimulatorExtension simulator = SimulatorExtension.withConfig(SimulatorConfig.builder()
      .timeToFirstToken(Duration.ofMillis(2)).interTokenInterval(Duration.ofMillis(1)).build());

  @InjectSimulator
  private Simulator sim;

  @Test
  void agentSessionsPrintTheirMetricsAndWriteThemToTheJson() throws IOException {
    Outcome o = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url", sim.baseUrl(), "--model",
        sim.config().model(), "--session-dataset", "agent", "--session-turns", "3", "--session-user-tokens", "16",
        "--session-output-tokens", "4", "--tool-latency-ms", "2", "--fan-out", "2", "--sessions", "3",
        "--max-sessions", "6", "--result-dir", dir.toString(), "--result-filename", "r.json", "--progress", "none");

    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(o.out()).contains("sessions            6: 6 completed, 0 failed, 0 cut by the run's end;"
        + " tool_chain_completion_rate 100.00%").contains("agent_turn_latency_ms{tool_call_depth=2,retry_count=0}  n 18");
    JsonNode s = new ObjectMapper().readTree(dir.resolve("r.infermark.json").toFile()).get("sessions");
    assertThat(s.get("completed").asInt()).isEqualTo(6);
    assertThat(s.get("agent_turn_latency_ms").get(0).get("count").asInt()).isEqualTo(18);
    // 6 sessions x 3 turns x (first call, after the tool, 2 branches, the join)
    assertThat(s.get("turns_per_session").get("p50").asDouble()).isEqualTo(3.0);
    assertThat(sim.requestCount()).isEqualTo(6 * 3 * 5 + 1); // and the test request
  }

  @Test
  void mooncakeTraceReplaysAsSessionsAtTheirStarts() throws IOException {
    Path trace = dir.resolve("trace.jsonl");
    // two conversations: a (lines 1, 3: line 3 extends line 1's full blocks) and b (line 2)
    Files.writeString(trace, """
        {"timestamp": 0, "input_length": 20, "output_length": 3, "hash_ids": [0, 1, 2]}
        {"timestamp": 10, "input_length": 12, "output_length": 2, "hash_ids": [0, 7]}
        {"timestamp": 40, "input_length": 30, "output_length": 3, "hash_ids": [0, 1, 5, 6]}
        """);
    Outcome o = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url", sim.baseUrl(), "--model",
        sim.config().model(), "--session-trace", trace.toString(), "--session-replay-speed", "1",
        "--result-dir", dir.toString(), "--result-filename", "r.json", "--progress", "none");

    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(o.out()).contains("sessions            2: 2 completed");
    JsonNode s = new ObjectMapper().readTree(dir.resolve("r.infermark.json").toFile()).get("sessions");
    assertThat(s.get("turns_per_session").get("max").asDouble()).isEqualTo(2.0);
  }

  @Test
  void sessionRunWithoutALoadIsACommandLineError() throws IOException {
    Path trace = dir.resolve("s.jsonl");
    Files.writeString(trace, "{\"turns\": [{\"message\": \"hi\"}]}\n");
    Outcome o = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url", "http://127.0.0.1:9",
        "--model", "m", "--session-trace", trace.toString(), "--progress", "none", "--no-save");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains("a session run needs exactly one of --sessions N, --session-rate PER_S or "
        + "--session-replay-speed X");
  }
}
