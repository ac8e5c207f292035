package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.InfermarkCliTest.Outcome;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.ColdStarts;
import io.infermark.metrics.journal.Journal;
import io.infermark.testkit.junit.InjectSimulator;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --cold-start-idle-gap}: against an OpenAI-compatible server (no load signal) the idle rule marks
 * exactly the requests sent after the target was idle that long, on the records and in the summaries.
 */
class ColdStartIdleGapCliTest {

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(SimulatorConfig.builder().port(0)
      .timeToFirstToken(Duration.ofMillis(5)).interTokenInterval(Duration.ofMillis(1)).build());

  @InjectSimulator
  private Simulator sim;

  @TempDir
  Path dir;

  private List<String> bench(String... extra) {
    List<String> args = new ArrayList<>(List.of("bench", "--base-url", "http://127.0.0.1:" + sim.port(),
        "--model", sim.config().model(), "--dataset-name", "random", "--random-input-len", "16",
        "--random-output-len", "8", "--progress", "none", "--result-dir", dir.toString(),
        "--result-filename", "run.json"));
    args.addAll(List.of(extra));
    return args;
  }

  private List<String> staged(String... extra) {
    List<String> args = bench(
        // one user sends back to back for 300 ms, none for 1.5 s, one again for 300 ms
        "--stage", "300ms:1:1000000", "--stage", "1500ms:0:1000000", "--stage", "300ms:1:1000000");
    args.addAll(List.of(extra));
    return args;
  }

  @Test
  void marksTheFirstRequestAndTheOneAfterThePauseAndNoOther() throws Exception {
    Outcome o = InfermarkCliTest.run(staged("--cold-start-idle-gap", "600ms").toArray(String[]::new));
    assertThat(o.code()).as(o.out() + o.err()).isZero();

    List<RequestRecord> sent = Journal.read(dir.resolve("run.records.jsonl")).records().stream()
        .filter(RequestRecord::wasSent).sorted(Comparator.comparingLong(RequestRecord::sendNanos)).toList();
    // The schedule: the first request of the run, and the first of the third stage (the user rejoins at 1.8 s,
    // after 1.5 s with nothing in flight but the first stage's last request, which ends within a few ms of
    // 300 ms). Every other request follows its predecessor on the same stream at once (a gap of 600 ms there would
    // take a stall of the client that long).
    RequestRecord first = sent.get(0);
    RequestRecord rejoined = sent.stream().filter(r -> r.sendNanos() >= 1_800_000_000L).findFirst().orElseThrow();
    List<Long> cold = sent.stream().filter(r -> r.tags().containsKey(ColdStarts.TAG)).map(RequestRecord::index)
        .toList();
    assertThat(cold).containsExactly(first.index(), rejoined.index());
    assertThat(first.tags().get(ColdStarts.TAG)).isEqualTo("first request of the run");
    assertThat(rejoined.tags().get(ColdStarts.TAG)).startsWith("after ").endsWith(" ms idle");
    assertThat(sent.size()).as("several requests a stage").isGreaterThan(6);

    JsonNode report = new ObjectMapper().readTree(dir.resolve("run.infermark.json").toFile());
    JsonNode c = report.path("summary").path("cold_start");
    if (c.isMissingNode()) {
      c = report.findValue("cold_start");
    }
    assertThat(c.path("cold").asInt()).isEqualTo(2);
    assertThat(c.path("warm").asInt()).isEqualTo(sent.size() - 2);
    assertThat(c.path("rule").asText()).contains("after 600.0 ms idle");
    assertThat(o.out()).contains("Cold starts:").contains("2 cold / " + (sent.size() - 2) + " warm");
  }

  @Test
  void withoutTheFlagAnOpenAiServerMarksNothingCold() throws Exception {
    Outcome o = InfermarkCliTest.run(bench("--num-prompts", "6", "--max-concurrency", "1").toArray(String[]::new));
    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(Journal.read(dir.resolve("run.records.jsonl")).records())
        .noneMatch(r -> r.tags().containsKey(ColdStarts.TAG));
    assertThat(new ObjectMapper().readTree(dir.resolve("run.infermark.json").toFile()).findValue("cold_start")
        .path("cold").asInt()).isZero();
    assertThat(o.out()).doesNotContain("Cold starts:");
  }

  @Test
  void aBadGapIsAUsageError() {
    Outcome o = InfermarkCliTest.run(bench("--cold-start-idle-gap", "soon").toArray(String[]::new));
    assertThat(o.code()).isEqualTo(Infermark.USAGE);
    assertThat(o.err().lines().findFirst().orElseThrow()).startsWith("infermark bench: ")
        .contains("'soon' is not a duration");
  }
}
