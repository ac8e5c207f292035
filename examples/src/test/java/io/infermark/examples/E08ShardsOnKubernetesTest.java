package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.Infermark;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.report.RecordsJsonl;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class E08ShardsOnKubernetesTest {

  private static final SimulatorConfig CONFIG = SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(5))
      .interTokenInterval(Duration.ofMillis(1)).build();

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(CONFIG);

  @Test
  void twoShardsAndTheMergeGiveTheWholeScheduleOnce(@TempDir Path dir, Simulator simulator) throws Exception {
    StringWriter text = new StringWriter();
    int code;
    code = E08ShardsOnKubernetes.run(simulator.baseUrl(), CONFIG.model(), dir, new PrintWriter(text, true));

    assertThat(code).as(text.toString()).isEqualTo(Infermark.OK);
    assertThat(text.toString()).contains("Wrote shard 0 of 2", "Wrote shard 1 of 2", "infermark merge: 2 shards of");
    List<RequestRecord> merged = RecordsJsonl.read(dir.resolve("run.records.jsonl"));
    assertThat(merged).extracting(RequestRecord::index)
        .containsExactlyElementsOf(LongStream.range(0, 60).boxed().toList());
    assertThat(merged).allMatch(RequestRecord::succeeded);
    assertThat(RecordsJsonl.read(dir.resolve("run.shard-0-of-2.records.jsonl"))).hasSize(30)
        .allMatch(r -> r.index() % 2 == 0);
    JsonNode vllm = new ObjectMapper().readTree(dir.resolve("run.json").toFile());
    assertThat(vllm.get("completed").asInt()).isEqualTo(60);
    assertThat(vllm.get("request_rate").asDouble()).isEqualTo(40.0);
  }
}
