package io.infermark.testkit.protocols;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.Benchmark;
import io.infermark.core.PreflightFailedException;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.AnthropicTarget;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.Fault;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pre-flight request: misconfigurations fail fast with the server's message; anything else runs. */
class PreflightAgainstSimulatorTest {

  private static final String KEY = "sk-preflight-SECRET";

  private static SimulatorConfig.Builder config() {
    return SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(2)).interTokenInterval(Duration.ofMillis(1));
  }

  private static Benchmark benchmark(io.infermark.core.protocol.Target target) {
    return Benchmark.target(target).prompts(Prompt.user("Hello")).params(GenerationParams.builder().maxTokens(4).build())
        .load(LoadProfile.concurrency(2).requests(20));
  }

  @Test
  void aWrongModelFailsTheRunAtOnceWithTheServersMessageAndNoSecret() {
    try (Simulator sim = Simulator.start(config().build());
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", "no-such-model").apiKey(KEY).build()) {
      assertThatThrownBy(() -> benchmark(target).run())
          .isInstanceOf(PreflightFailedException.class)
          .hasMessageContaining("404")
          .hasMessageContaining("The model `no-such-model` does not exist")
          .hasMessageNotContaining(KEY)
          .satisfies(e -> assertThat(((PreflightFailedException) e).failure().httpStatus()).isEqualTo(404));
      // One request reached the server, not twenty.
      assertThat(sim.timeline("infermark-preflight")).isPresent();
      assertThat(sim.requestCount()).isEqualTo(1);
    }
  }

  @Test
  void aWrongModelOnAnotherProtocolFailsTheSameWay() {
    try (Simulator sim = Simulator.start(config().build());
        AnthropicTarget target = AnthropicTarget.messages(sim.baseUrl(), "claude-nope").apiKey(KEY).build()) {
      assertThatThrownBy(() -> benchmark(target).run())
          .isInstanceOf(PreflightFailedException.class)
          .hasMessageContaining("not_found_error")
          .hasMessageNotContaining(KEY);
    }
  }

  @Test
  void anUnreachableHostFailsTheRunAtOnce() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed when the block ends: nothing listens there
    }
    try (OpenAiTarget target = OpenAiTarget.chat("http://127.0.0.1:" + port + "/v1", "m").build()) {
      assertThatThrownBy(() -> benchmark(target).run())
          .isInstanceOf(PreflightFailedException.class)
          .satisfies(e -> assertThat(((PreflightFailedException) e).failure().category())
              .isEqualTo(ErrorCategory.CONNECT));
    }
  }

  @Test
  void withTheCheckOffAWrongModelGivesOneFailedRecordPerRequest() {
    try (Simulator sim = Simulator.start(config().build());
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", "no-such-model").build()) {
      RunResult run = benchmark(target).preflight(false).run();
      assertThat(run.records()).hasSize(20).allSatisfy(r -> assertThat(r.failure().orElseThrow().httpStatus())
          .isEqualTo(404));
    }
  }

  @Test
  void aPreflightAnsweredWithAnythingButAMisconfigurationLetsTheRunGoAhead() {
    // The pre-flight request is the server's request 0, which is rate limited.
    try (Simulator sim = Simulator.start(config().faultOnRequests(Fault.rateLimited(Duration.ofSeconds(1)), 0).build());
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      RunResult run = benchmark(target).run();
      assertThat(run.records()).hasSize(20).allMatch(RequestRecord::succeeded);
      assertThat(sim.timeline("infermark-preflight").orElseThrow().status()).hasValue(429);
    }
  }
}
