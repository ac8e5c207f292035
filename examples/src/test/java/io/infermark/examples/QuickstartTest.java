package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuickstartTest {

  @Test
  void quickstartRunsTwoHundredRequestsAndWritesItsReport(@TempDir Path dir) throws Exception {
    Path report = dir.resolve("reports/infermark-report.json");

    Quickstart.main(new String[] {report.toString()});

    JsonNode json = new ObjectMapper().readTree(report.toFile());
    assertThat(json.path("requests").path("measured").asInt()).isEqualTo(200);
    assertThat(json.path("requests").path("warmup_excluded").asInt()).isEqualTo(16);
    assertThat(json.path("requests").path("failed").asInt()).isZero();
    assertThat(json.path("run").path("load").path("concurrency").asInt()).isEqualTo(16);
    // 64 tokens each, as asked with ignore_eos, counted by the server.
    assertThat(json.path("tokens").path("output_tokens").asLong()).isEqualTo(200L * 64);
    assertThat(json.path("tokens").path("count_sources").path("server_usage").asInt()).isEqualTo(200);
    // The simulator's first token comes 25 ms after admission; the client cannot see it sooner.
    assertThat(json.path("latency").path("ttft_ms").path("min").asDouble()).isGreaterThanOrEqualTo(25.0);
  }
}
