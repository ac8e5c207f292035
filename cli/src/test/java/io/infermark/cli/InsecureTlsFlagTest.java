package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.options.TargetOptions;
import io.infermark.core.protocol.Target;
import io.infermark.metrics.journal.Journal;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** --insecure-tls (vLLM's --insecure) switches the library's TLS opt-out on, and everything says so. */
class InsecureTlsFlagTest {

  @TempDir
  Path dir;

  @Test
  void theFlagBuildsAnUnverifiedTargetOnEitherTransport() {
    for (String transport : new String[] {"netty", "okhttp"}) {
      for (String flag : new String[] {"--insecure-tls", "--insecure"}) {
        TargetOptions options = new TargetOptions();
        new CommandLine(options).parseArgs("--model", "m", "--base-url", "https://127.0.0.1:8443", "--transport",
            transport, flag);
        try (Target t = options.build()) {
          assertThat(t.insecureTls()).as("%s %s", transport, flag).isTrue();
          assertThat(t.toString()).contains("INSECURE TLS");
        }
      }
      TargetOptions verified = new TargetOptions();
      new CommandLine(verified).parseArgs("--model", "m", "--base-url", "https://127.0.0.1:8443", "--transport",
          transport);
      try (Target t = verified.build()) {
        assertThat(t.insecureTls()).isFalse();
      }
    }
  }

  @Test
  void aRunWithTheFlagMarksTheConsoleTheReportAndEveryRecord() throws Exception {
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(2))
        .interTokenInterval(Duration.ofMillis(1)).build())) {
      InfermarkCliTest.Outcome o = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url",
          "http://127.0.0.1:" + sim.port(), "--model", sim.config().model(), "--random-input-len", "8",
          "--random-output-len", "2", "--num-prompts", "4", "--max-concurrency", "2", "--insecure-tls",
          "--progress", "none", "--result-dir", dir.toString(), "--result-filename", "tls.json");

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      JsonNode run = new ObjectMapper().readTree(dir.resolve("tls.infermark.json").toFile()).get("run");
      assertThat(run.get("insecure_tls").asBoolean()).isTrue();
      assertThat(run.get("warning").asText()).contains("TLS verification was OFF");
      assertThat(Journal.read(dir.resolve("tls.records.jsonl")).records()).hasSize(4)
          .allMatch(r -> r.insecureTls());
    }
  }
}
