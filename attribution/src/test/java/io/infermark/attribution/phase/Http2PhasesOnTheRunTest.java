package io.infermark.attribution.phase;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.transport.netty.HttpVersionPolicy;
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorProtocol;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An h2c run keeps the server's SETTINGS, and its phase split gives the SETTINGS round trip a phase of its own. */
class Http2PhasesOnTheRunTest {

  @Test
  void theServersSettingsAreOnTheRunAndTheSettingsRoundTripIsAPhase() {
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(1)).build(), SimulatorProtocol.H2C);
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model())
            .transport(NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2).build()).build()) {
      RunResult run = Benchmark.target(target).preflight(false).prompts(Prompt.user("Hello"))
          .params(GenerationParams.builder().maxTokens(4).build()).load(LoadProfile.concurrency(2).requests(4)).run();

      assertThat(run.target()).contains("server Http2Settings[127.0.0.1:" + sim.port() + " max_concurrent_streams=100");
      List<RequestRecord> opened = run.records().stream()
          .filter(r -> r.phases().offsetNanos(Phase.SETTINGS_RECEIVED).isPresent()).toList();
      assertThat(opened).isNotEmpty();
      for (RequestRecord r : run.records()) {
        RequestPhases p = RequestPhases.of(r, LatencyBasis.SERVICE_TIME);
        long settings = r.phases().settingsNanos().orElse(0);
        // the split's SETTINGS phase is the SETTINGS round trip the record holds: CONNECT_END -> SETTINGS_RECEIVED
        assertThat(p.nanos(LatencyPhase.SETTINGS)).as("%s", r).isEqualTo(settings);
        assertThat(p.nanos(LatencyPhase.SETTINGS)).isGreaterThanOrEqualTo(0);
      }
      RequestRecord first = opened.get(0);
      assertThat(first.phases().offsetNanos(Phase.CONNECT_END).getAsLong())
          .isLessThanOrEqualTo(first.phases().offsetNanos(Phase.SETTINGS_RECEIVED).getAsLong());
    }
  }
}
