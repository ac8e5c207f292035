package io.infermark.testkit.protocols;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.protocol.Target;
import io.infermark.core.protocol.TritonGrpcTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.transport.netty.HttpVersionPolicy;
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorProtocol;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The simulator's TLS port (self-signed certificate, ALPN h2 and http/1.1): an HTTP/2 client gets h2 with the
 * TLS and SETTINGS milestones, an HTTP/1.1 client gets HTTP/1.1 on the same port, and gRPC runs over h2.
 */
class H2OverTlsAgainstSimulatorTest {

  static Simulator sim;

  @BeforeAll
  static void start() {
    sim = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(1)).outputTokensBetween(6, 6).build(), SimulatorProtocol.H2);
  }

  @AfterAll
  static void stop() {
    sim.close();
  }

  private static RunResult run(Target target) {
    return Benchmark.target(target).preflight(false).prompts(Prompt.user("Hello over TLS"))
        .params(GenerationParams.builder().maxTokens(6).build()).load(LoadProfile.concurrency(2).requests(4)).run();
  }

  @Test
  void anHttp2ClientVerifyingTheCertificateGetsH2WithItsTlsAndSettingsMilestones() {
    assertThat(sim.baseUrl()).startsWith("https://");
    try (OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model())
        .transport(NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2)
            .trustManagerFactory(sim.trustManagerFactory().orElseThrow()).build()).build()) {
      RunResult run = run(target);
      assertThat(run.records()).allMatch(RequestRecord::succeeded).noneMatch(RequestRecord::insecureTls);
      assertThat(run.records()).anyMatch(r -> r.phases().offsetNanos(Phase.SECURE_CONNECT_END).isPresent()
          && r.phases().offsetNanos(Phase.SETTINGS_RECEIVED).isPresent());
      assertThat(run.records()).allMatch(r -> r.outputTokens() == 6);
      assertThat(run.target()).contains("server Http2Settings[");
    }
  }

  @Test
  void anHttp11ClientIsServedHttp11OnTheSamePort() {
    try (OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model())
        .transport(NettyTransport.builder().trustManagerFactory(sim.trustManagerFactory().orElseThrow()).build())
        .build()) {
      RunResult run = run(target);
      assertThat(run.records()).allMatch(RequestRecord::succeeded);
      assertThat(run.records()).anyMatch(r -> r.phases().offsetNanos(Phase.SECURE_CONNECT_END).isPresent());
      assertThat(run.records()).noneMatch(r -> r.phases().offsetNanos(Phase.SETTINGS_RECEIVED).isPresent());
    }
  }

  @Test
  void grpcRunsOverH2() {
    try (TritonGrpcTarget target = TritonGrpcTarget.streamInfer(sim.baseUrl(), sim.config().model())
        .insecureTls(true).build()) {
      RunResult run = run(target);
      assertThat(run.records()).allMatch(RequestRecord::succeeded).allMatch(RequestRecord::insecureTls);
      assertThat(run.records()).allMatch(r -> r.outputTokens() == 6);
      assertThat(run.target()).contains(" h2,");
    }
  }
}
