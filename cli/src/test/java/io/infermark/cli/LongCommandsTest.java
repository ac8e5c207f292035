package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.options.DurationText;
import io.infermark.metrics.journal.Journal;
import io.infermark.testkit.junit.InjectSimulator;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** sweep and capacity stay visible and bounded: rows as levels end, files per level, a time limit that holds. */
class LongCommandsTest {

  @InjectSimulator
  private Simulator sim;

  @TempDir
  Path dir;

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(
      SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(10)).build());

  private List<String> command(String name, String... extra) {
    List<String> args = new ArrayList<>(List.of(name, "--backend", "openai-chat", "--base-url",
        "http://127.0.0.1:" + sim.port(), "--model", sim.config().model(), "--random-input-len", "16",
        "--random-output-len", "4", "--ignore-eos"));
    args.addAll(List.of(extra));
    return args;
  }

  @Test
  void sweepWithAResultDirWritesEveryLevelsFilesAndASummary() throws Exception {
    InfermarkCliTest.Outcome o = InfermarkCliTest.run(command("sweep", "--concurrencies", "1,2,4", "--num-prompts", "8",
        "--result-dir", dir.toString()).toArray(String[]::new));

    assertThat(o.code()).as(o.out() + o.err()).isZero();
    for (String level : List.of("1", "2", "4")) {
      String stem = "sweep-streams-" + level;
      JsonNode vllm = new ObjectMapper().readTree(dir.resolve(stem + ".json").toFile());
      assertThat(vllm.get("completed").asInt()).isEqualTo(8);
      assertThat(vllm.get("max_concurrency").asInt()).isEqualTo(Integer.parseInt(level));
      assertThat(new ObjectMapper().readTree(dir.resolve(stem + ".infermark.json").toFile()).get("run")).isNotNull();
      Journal journal = Journal.read(dir.resolve(stem + ".records.jsonl"));
      assertThat(journal.complete()).isTrue();
      assertThat(journal.records()).hasSize(8);
    }
    JsonNode summary = new ObjectMapper().readTree(dir.resolve("sweep.sweep.json").toFile());
    assertThat(summary.get("variable").asText()).isEqualTo("streams");
    assertThat(summary.get("levels_run").asInt()).isEqualTo(3);
    assertThat(summary.get("stopped").isNull()).isTrue();
    assertThat(summary.get("levels")).hasSize(3);
    assertThat(summary.get("levels").get(2).get("files").get("vllm").asText()).isEqualTo("sweep-streams-4.json");
    assertThat(summary.get("knee").get("metric").asText()).isEqualTo("TTFT");
    assertThat(dir.resolve("sweep.sweep.html")).exists(); // the curve goes with the other files
    // Rows come as levels end: the row of level 1 is printed before level 2's run starts.
    String err = o.err();
    String out = o.out();
    assertThat(out).containsPattern("(?m)^ +1 \\| +8 \\|").containsPattern("(?m)^ +4 \\| +8 \\|");
    assertThat(err).contains("running 8 requests on 1 streams", "running 8 requests on 4 streams");
  }

  @Test
  void capacityEndsWithinItsMaxDurationWithTheBestFoundSoFar() {
    // Each request streams 4 tokens 10 ms apart; a probe of 200 requests at 2 req/s would take 100 s.
    long start = System.nanoTime();
    InfermarkCliTest.Outcome o = InfermarkCliTest.run(command("capacity", "--objective", "e2e:p99:5000",
        "--start-rate", "2", "--num-prompts", "200", "--max-duration", "3s", "--drain-timeout", "1")
        .toArray(String[]::new));
    double took = (System.nanoTime() - start) / 1e9;

    assertThat(o.out()).contains("Search stopped early: the probe at 2.000 req/s was interrupted (--max-duration "
        + "reached)", "--max-duration PT3S reached after 1 probes");
    assertThat(o.err()).contains("--max-duration reached while level 2 was running: stopping it");
    // 3 s of search, at most 1 s of drain, and the command's own start and end.
    assertThat(took).isLessThan(3 + 1 + 10);
    assertThat(o.code()).isIn(Infermark.OK, Infermark.GATE_FAILED);
  }

  @Test
  void capacitySizesLowRateProbesByDuration() {
    CapacityCommand c = new CapacityCommand();
    c.numPrompts.value = 200;
    c.probeDuration = Duration.ofSeconds(60);
    assertThat(c.probeRequests(100)).isEqualTo(200); // 6,000 would arrive in a minute: the count limits
    assertThat(c.probeRequests(1)).isEqualTo(60);
    assertThat(c.probeRequests(0.25)).isEqualTo(15);
    assertThat(c.probeRequests(0.01)).isEqualTo(CapacityCommand.MIN_PROBE_REQUESTS);
    c.numPrompts.value = 5;
    assertThat(c.probeRequests(0.01)).isEqualTo(5);
  }

  @Test
  void badDurationsAreRefused() {
    InfermarkCliTest.Outcome o = InfermarkCliTest.run(command("sweep", "--rates", "1", "--max-duration", "soon", "--no-html")
        .toArray(String[]::new));
    assertThat(o.code()).isEqualTo(Infermark.USAGE);
    assertThat(o.err()).contains("'soon' is not a duration");
    assertThat(DurationText.parse("90")).isEqualTo(Duration.ofSeconds(90));
    assertThat(DurationText.parse("30m")).isEqualTo(Duration.ofMinutes(30));
    assertThat(DurationText.parse("1.5h")).isEqualTo(Duration.ofMinutes(90));
    assertThat(DurationText.parse("PT2H")).isEqualTo(Duration.ofHours(2));
    assertThat(DurationText.parse("250ms")).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void locustFlagsRampUsersAndHoldThemForTheRunTime() throws Exception {
    InfermarkCliTest.Outcome o = InfermarkCliTest.run(command("bench", "--users", "4", "--spawn-rate", "20",
        "--run-time", "1500ms", "--progress", "none", "--skip-test-request", "--result-dir", dir.toString(),
        "--result-filename", "users.json").toArray(String[]::new));

    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(o.out()).contains("users: UserRamp[from 0");
    JsonNode vllm = new ObjectMapper().readTree(dir.resolve("users.json").toFile());
    assertThat(vllm.get("max_concurrency").asInt()).isEqualTo(4);
    int completed = vllm.get("completed").asInt();
    assertThat(completed).isPositive();
    assertThat(vllm.get("num_prompts").asInt()).isEqualTo(completed + vllm.get("failed").asInt());
    JsonNode load = new ObjectMapper().readTree(dir.resolve("users.infermark.json").toFile()).get("run").get("load");
    assertThat(load.get("mode").asText()).isEqualTo("closed_loop");
    assertThat(load.get("concurrency").asInt()).isEqualTo(4);
    assertThat(load.get("duration_s").asDouble()).isEqualTo(1.5);
  }

  @Test
  void locustStagesAndTheirMistakes() {
    UserRampOptions staged = new UserRampOptions();
    staged.stages = List.of("1s:2:4", "2s:6:8", "500ms:0:20");
    assertThat(staged.ramp().maxUsers()).isEqualTo(6);
    assertThat(staged.ramp().duration()).isEqualTo(Duration.ofMillis(3500));

    UserRampOptions tooFast = new UserRampOptions();
    tooFast.stages = List.of("1s:20:2");
    org.assertj.core.api.Assertions.assertThatThrownBy(tooFast::ramp)
        .hasMessageContaining("moving from 0 to 20 users at 2 per second takes 10.0 s, longer than the stage");

    InfermarkCliTest.Outcome noRunTime = InfermarkCliTest.run(command("bench", "--users", "4").toArray(String[]::new));
    assertThat(noRunTime.code()).isEqualTo(Infermark.USAGE);
    assertThat(noRunTime.err()).contains("--users needs --run-time");
    InfermarkCliTest.Outcome both = InfermarkCliTest.run(command("bench", "--users", "4", "--run-time", "5s",
        "--request-rate", "10").toArray(String[]::new));
    assertThat(both.err()).contains("drop --request-rate and --max-concurrency");
    InfermarkCliTest.Outcome badStage = InfermarkCliTest.run(command("bench", "--stage", "10s:ten:1")
        .toArray(String[]::new));
    assertThat(badStage.err()).contains("--stage takes DURATION:USERS:SPAWN_RATE");
  }
}
