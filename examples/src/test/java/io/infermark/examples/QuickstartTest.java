package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.testkit.simulator.EngineProfile;
import java.nio.file.Files;
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
    // A first token needs at least one prefill step of the 8B profile; the client cannot see it sooner.
    double prefillStep = EngineProfile.llama8bH200().prefillStepMillis(1);
    assertThat(json.path("latency").path("ttft_ms").path("min").asDouble()).isGreaterThanOrEqualTo(prefillStep);
    assertThat(json.path("slo").path("name").asText()).isEqualTo("chat");
    String html = Files.readString(dir.resolve("reports/infermark-report.html"));
    assertThat(html).startsWith("<!DOCTYPE html>").contains("infermark quickstart", "<figure class='chart ")
        .doesNotContain("<script src");
  }

  @Test
  void helpPrintsUsageInsteadOfRunningTheDemo() {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream o = new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8);
    java.io.PrintStream e = new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8);

    assertThat(Quickstart.usage(new String[] {"--help"}, o, e)).isZero();
    assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8)).startsWith("usage: java -jar infermark-quickstart.jar");
    assertThat(Quickstart.usage(new String[] {"-h"}, o, e)).isZero();
    assertThat(Quickstart.usage(new String[] {"--bogus"}, o, e)).isEqualTo(2);
    assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("unexpected --bogus");
    assertThat(Quickstart.usage(new String[] {"a.json", "b.json"}, o, e)).isEqualTo(2);
    assertThat(Quickstart.usage(new String[] {"out/report.json"}, o, e)).isEqualTo(-1);
    assertThat(Quickstart.usage(new String[0], o, e)).isEqualTo(-1);
  }
}
