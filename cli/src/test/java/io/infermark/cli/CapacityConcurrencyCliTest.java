package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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

/**
 * {@code capacity --search concurrency} against a simulator whose capacity is known: it serves one request at a
 * time (max concurrency 1), each a single token 100 ms after admission, so with {@code c} closed-loop streams a
 * request waits for the {@code c − 1} ahead of it and its E2E is {@code c × 100 ms} (the first round 100, 200, ...).
 * Under P95 E2E ≤ 450 ms the answer is 4 streams (400 ms): 5 streams take at least 5 × 100 ms less the client's
 * own turnaround between a reply and the next send, well above 450 ms, whatever the machine does (a late wake-up
 * only adds). Below, the run can only be slower than the model, so the test asks for at most 4, and for at least
 * 2 (200 ms, 250 ms under the objective) and for the search's own exactness: the level just above the answer was
 * probed and failed. The client's monitors are off: on a busy machine a probe's client may be judged
 * CLIENT_BOUND, which would end the search (as it should in a real run), while these bounds hold whatever the
 * client's health.
 */
class CapacityConcurrencyCliTest {

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(
      SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(100))
          .interTokenInterval(Duration.ofMillis(10)).maxConcurrency(1).build());

  @InjectSimulator
  private Simulator sim;

  @TempDir
  Path dir;

  private List<String> capacity(String... extra) {
    List<String> args = new ArrayList<>(List.of("capacity", "--backend", "openai-chat", "--base-url",
        "http://127.0.0.1:" + sim.port(), "--model", sim.config().model(), "--random-input-len", "8",
        "--random-output-len", "1", "--ignore-eos", "--num-prompts", "12", "--client-monitors", "off"));
    args.addAll(List.of(extra));
    return args;
  }

  @Test
  void findsTheLargestConcurrencyWhoseP95StaysUnderTheObjectiveAndSaysItSearchedConcurrency() throws Exception {
    Path json = dir.resolve("capacity.json");
    InfermarkCliTest.Outcome o = InfermarkCliTest.run(capacity("--search", "concurrency", "--objective",
        "e2e:p95:450", "--result-json", json.toString()).toArray(String[]::new));

    assertThat(o.code()).as(o.out() + o.err()).isEqualTo(Infermark.OK);
    JsonNode root = new ObjectMapper().readTree(json.toFile());
    assertThat(root.get("format").asText()).isEqualTo("infermark-capacity/1");
    assertThat(root.get("search").asText()).isEqualTo("concurrency");
    assertThat(root.get("unit").asText()).isEqualTo("streams");
    assertThat(root.get("objective").get("metric").asText()).isEqualTo("E2E");
    assertThat(root.get("objective").get("percentile").asDouble()).isEqualTo(95.0);
    assertThat(root.get("objective").get("threshold_ms").asDouble()).isEqualTo(450.0);
    int capacity = root.get("capacity").asInt();
    assertThat(capacity).isBetween(2, 4);
    assertThat(root.get("capacity").isIntegralNumber()).isTrue();
    JsonNode probes = root.get("probes");
    boolean aboveFailed = false;
    for (JsonNode p : probes) {
      int level = p.get("level").asInt();
      assertThat(p.get("requests").asInt()).isEqualTo(12);
      // A probe's P95 is at least its level's queue (the model's c × 100 ms) less a client turnaround.
      if (level >= 5) {
        assertThat(p.get("passed").asBoolean()).as("%d streams", level).isFalse();
        assertThat(p.get("value_ms").asDouble()).isGreaterThan(450);
      }
      if (level == capacity + 1) {
        aboveFailed = !p.get("passed").asBoolean();
      }
    }
    assertThat(aboveFailed).as("the level above the capacity was probed and failed: " + probes).isTrue();
    assertThat(o.out()).contains("Searching the largest closed-loop concurrency (streams) that meets E2E p95 <= 450 ms",
        "streams | requests", "Capacity (concurrency search): " + capacity + " streams meet E2E p95 <= 450 ms",
        "Wrote " + json);
    assertThat(o.err()).contains("running 12 requests on 1 streams", "running 12 requests on " + capacity + " streams");
  }

  @Test
  void theSearchFlagIsCheckedAndTheRateSearchSaysItIsOne() throws Exception {
    InfermarkCliTest.Outcome bad = InfermarkCliTest.run(capacity("--search", "users").toArray(String[]::new));
    assertThat(bad.code()).isEqualTo(Infermark.USAGE);
    assertThat(bad.err()).contains("--search takes rate or concurrency, was 'users'");
    InfermarkCliTest.Outcome mixed = InfermarkCliTest.run(capacity("--search", "concurrency", "--max-rate", "8")
        .toArray(String[]::new));
    assertThat(mixed.code()).isEqualTo(Infermark.USAGE);
    assertThat(mixed.err()).contains("--max-rate applies to --search rate, not to --search concurrency");
    InfermarkCliTest.Outcome mixedRate = InfermarkCliTest.run(capacity("--max-concurrency", "8").toArray(String[]::new));
    assertThat(mixedRate.code()).isEqualTo(Infermark.USAGE);
    assertThat(mixedRate.err()).contains("--max-concurrency applies to --search concurrency, not to --search rate");

    // A rate search at a rate the serial server holds (2 req/s of 100 ms requests) up to its maximum.
    Path json = dir.resolve("rate.json");
    InfermarkCliTest.Outcome rate = InfermarkCliTest.run(capacity("--start-rate", "2", "--max-rate", "2",
        "--num-prompts", "4", "--objective", "e2e:p95:5000", "--result-json", json.toString()).toArray(String[]::new));
    assertThat(rate.code()).as(rate.out() + rate.err()).isEqualTo(Infermark.OK);
    assertThat(rate.out()).contains("Searching the highest request rate (Poisson arrivals, req/s)",
        "Capacity (rate search): 2.000 req/s meet E2E p95 <= 5000 ms (limited by --max-rate)");
    JsonNode root = new ObjectMapper().readTree(json.toFile());
    assertThat(root.get("search").asText()).isEqualTo("rate");
    assertThat(root.get("unit").asText()).isEqualTo("req/s");
    assertThat(root.get("capacity").asDouble()).isEqualTo(2.0);
    assertThat(root.get("limited_by_max").asBoolean()).isTrue();
  }

  @Test
  void theDefaultObjectiveIsSeed002sP95EndToEndUnderTwoSeconds() {
    assertThat(CapacityCommand.SEED_002_OBJECTIVE).isEqualTo("e2e:p95:2000");
    assertThat(CapacityCommand.axis("Concurrency")).isEqualTo(io.infermark.core.sweep.CapacityAxis.CONCURRENCY);
  }
}
