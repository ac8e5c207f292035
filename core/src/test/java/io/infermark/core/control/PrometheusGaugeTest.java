package io.infermark.core.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Map;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;

class PrometheusGaugeTest {

  private static final String PAGE = """
      # HELP vllm:num_requests_waiting Number of requests waiting to be processed.
      # TYPE vllm:num_requests_waiting gauge
      vllm:num_requests_waiting{model_name="a"} 3.0
      vllm:num_requests_waiting{model_name="b"} 4.0
      vllm:num_requests_waiting_total 99
      vllm:num_requests_running{model_name="a"} 7.0
      """;

  @Test
  void parsesAGaugeSummingMatchingSeries() {
    assertThat(PrometheusGauge.parse(PAGE, "vllm:num_requests_waiting", Map.of())).hasValue(7.0);
    assertThat(PrometheusGauge.parse(PAGE, "vllm:num_requests_waiting", Map.of("model_name", "b"))).hasValue(4.0);
    assertThat(PrometheusGauge.parse(PAGE, "vllm:num_requests_running", Map.of())).hasValue(7.0);
    assertThat(PrometheusGauge.parse(PAGE, "absent", Map.of())).isEmpty();
  }

  @Test
  void fetchesTheEndpointEachReadAndReadsFailuresAsEmpty() throws IOException {
    try (MockWebServer server = new MockWebServer()) {
      server.start();
      server.enqueue(new MockResponse.Builder().body(PAGE).build());
      server.enqueue(new MockResponse.Builder().code(500).build());
      ControlSignal.Probe probe = PrometheusGauge.of(server.url("/metrics").toString(),
          "vllm:num_requests_waiting", Map.of(), java.time.Duration.ofSeconds(30)).open();
      assertThat(probe.read(0)).hasValue(7.0);
      assertThat(probe.read(1)).isEmpty();
      assertThat(server.getRequestCount()).isEqualTo(2);
    }
  }
}
