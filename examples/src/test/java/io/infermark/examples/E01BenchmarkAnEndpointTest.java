package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.metrics.RunSummary;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class E01BenchmarkAnEndpointTest {

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(SimulatorConfig.builder().build());

  @Test
  void benchmarksTheEndpointPrintsTheSummaryAndWritesBothReports(@TempDir Path dir, Simulator sim) throws Exception {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    RunSummary summary;
    summary = E01BenchmarkAnEndpoint.run(sim.baseUrl() + "/v1", sim.config().model(), dir,
        new PrintStream(console, true, StandardCharsets.UTF_8));

    assertThat(summary.requests().measured()).isEqualTo(E01BenchmarkAnEndpoint.REQUESTS);
    assertThat(summary.requests().failed()).isZero();
    assertThat(console.toString(StandardCharsets.UTF_8)).contains("TTFT", "chat", "Reports written to");
    JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
    assertThat(json.path("requests").path("measured").asInt()).isEqualTo(E01BenchmarkAnEndpoint.REQUESTS);
    assertThat(json.path("requests").path("warmup_excluded").asInt()).isEqualTo(E01BenchmarkAnEndpoint.WARMUP);
    assertThat(json.path("tokens").path("output_tokens").asLong())
        .isEqualTo((long) E01BenchmarkAnEndpoint.REQUESTS * E01BenchmarkAnEndpoint.OUTPUT_TOKENS);
    assertThat(json.path("slo").path("name").asText()).isEqualTo("chat");
    assertThat(Files.readString(dir.resolve("report.html"))).startsWith("<!DOCTYPE html>").contains("E01 ");
  }
}
