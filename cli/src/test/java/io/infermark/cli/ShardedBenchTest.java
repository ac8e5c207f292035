package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.report.RecordsJsonl;
import io.infermark.testkit.junit.InjectSimulator;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** bench --shard-index/--shard-count/--start-at and merge, in-process against the embedded simulator. */
class ShardedBenchTest {

  @InjectSimulator
  private Simulator sim;

  @TempDir
  Path dir;

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(
      SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(1)).build());

  private List<String> shard(int index, int count, Path out, String... extra) {
    List<String> args = new ArrayList<>(List.of("bench", "--backend", "openai-chat", "--base-url",
        "http://127.0.0.1:" + sim.port(), "--endpoint", "/v1/chat/completions", "--model", sim.config().model(),
        "--random-input-len", "16", "--random-output-len", "4", "--ignore-eos", "--num-prompts", "20",
        "--request-rate", "100", "--seed", "7", "--progress", "none", "--result-filename", "run.json",
        "--shard-index", Integer.toString(index), "--shard-count", Integer.toString(count),
        "--result-dir", out.toString()));
    args.addAll(List.of(extra));
    return args;
  }

  private static InfermarkCliTest.Outcome run(List<String> args) {
    return InfermarkCliTest.run(args.toArray(String[]::new));
  }

  @Test
  void twoShardsStartedTogetherMergeIntoTheWholeSchedule() throws IOException {
    String startAt = Instant.now().plusMillis(800).truncatedTo(ChronoUnit.MILLIS).toString();
    CompletableFuture<InfermarkCliTest.Outcome> s0 =
        CompletableFuture.supplyAsync(() -> run(shard(0, 2, dir, "--start-at", startAt)));
    CompletableFuture<InfermarkCliTest.Outcome> s1 =
        CompletableFuture.supplyAsync(() -> run(shard(1, 2, dir, "--start-at", startAt)));
    for (InfermarkCliTest.Outcome o : List.of(s0.join(), s1.join())) {
      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(o.out()).contains("Waiting for the start barrier at " + startAt, "when every shard is done: infermark merge");
    }
    List<RequestRecord> shard0 = RecordsJsonl.read(dir.resolve("run.shard-0-of-2.records.jsonl"));
    List<RequestRecord> shard1 = RecordsJsonl.read(dir.resolve("run.shard-1-of-2.records.jsonl"));
    // A shard's records are its journal, written in the order requests completed.
    assertThat(shard0).extracting(RequestRecord::index)
        .containsExactlyInAnyOrder(0L, 2L, 4L, 6L, 8L, 10L, 12L, 14L, 16L, 18L);
    assertThat(shard1).extracting(RequestRecord::index)
        .containsExactlyInAnyOrder(1L, 3L, 5L, 7L, 9L, 11L, 13L, 15L, 17L, 19L);
    // a shard writes no whole-run results: those are the merge's
    assertThat(dir.resolve("run.json")).doesNotExist();

    InfermarkCliTest.Outcome merged = InfermarkCliTest.run("merge", dir.toString());

    assertThat(merged.code()).as(merged.out() + merged.err()).isZero();
    assertThat(merged.out()).contains("infermark merge: 2 shards of", "Successful requests:                     20",
        "Serving Benchmark Result");
    List<RequestRecord> all = RecordsJsonl.read(dir.resolve("run.records.jsonl"));
    assertThat(all).extracting(RequestRecord::index)
        .containsExactlyElementsOf(LongStream.range(0, 20).boxed().toList());
    assertThat(all).extracting(RequestRecord::requestId).containsExactlyInAnyOrderElementsOf(
        Stream.concat(shard0.stream(), shard1.stream()).map(RequestRecord::requestId).toList());
    assertThat(all).allMatch(RequestRecord::succeeded);
    JsonNode vllm = new ObjectMapper().readTree(dir.resolve("run.json").toFile());
    assertThat(vllm.get("completed").asInt()).isEqualTo(20);
    assertThat(vllm.get("num_prompts").asInt()).isEqualTo(20);
    assertThat(vllm.get("request_rate").asDouble()).isEqualTo(100.0);
    assertThat(dir.resolve("run.infermark.json")).exists();
  }

  @Test
  void shardsOfDifferentSettingsAreRefusedNamingTheDifference() {
    assertThat(run(shard(0, 2, dir, "--skip-test-request")).code()).isZero();
    List<String> other = shard(1, 2, dir, "--skip-test-request");
    other.set(other.indexOf("--seed") + 1, "8");
    assertThat(run(other).code()).isZero();

    InfermarkCliTest.Outcome merged = InfermarkCliTest.run("merge", dir.toString());

    assertThat(merged.code()).isEqualTo(Infermark.USAGE);
    assertThat(merged.err()).contains("run.shard-1-of-2.json and run.shard-0-of-2.json were run with different "
        + "settings (--seed 7 vs 8)");
  }

  @Test
  void aMissingShardIsNamed() {
    assertThat(run(shard(1, 3, dir, "--skip-test-request")).code()).isZero();

    InfermarkCliTest.Outcome merged = InfermarkCliTest.run("merge", dir.toString());

    assertThat(merged.code()).isEqualTo(Infermark.USAGE);
    assertThat(merged.err()).contains("expected 3 shards, got 1 (missing [0, 2])");
  }

  @Test
  void shardsOfDifferentCountsAreRefused() {
    assertThat(run(shard(0, 2, dir, "--skip-test-request")).code()).isZero();
    assertThat(run(shard(1, 3, dir, "--skip-test-request")).code()).isZero();

    InfermarkCliTest.Outcome merged = InfermarkCliTest.run("merge", dir.toString());

    assertThat(merged.code()).isEqualTo(Infermark.USAGE);
    assertThat(merged.err()).contains("run.shard-1-of-3.json is shard 1 of 3 but run.shard-0-of-2.json is shard 0 of 2");
  }

  @Test
  void badShardFlagsAreRefusedBeforeAnyRequest() {
    List<String> inf = shard(0, 2, dir);
    inf.set(inf.indexOf("--request-rate") + 1, "inf");
    InfermarkCliTest.Outcome closedLoop = run(inf);
    assertThat(closedLoop.code()).isEqualTo(Infermark.USAGE);
    assertThat(closedLoop.err()).contains("--shard-count splits an open-loop schedule: give a finite --request-rate");

    InfermarkCliTest.Outcome outOfRange = run(shard(2, 2, dir));
    assertThat(outOfRange.err()).contains("--shard-index must be in [0, 2) for --shard-count 2, was 2");

    InfermarkCliTest.Outcome badInstant = run(shard(0, 2, dir, "--start-at", "in a minute"));
    assertThat(badInstant.code()).isEqualTo(Infermark.USAGE);
    assertThat(badInstant.err()).contains("--start-at takes an ISO-8601 instant");

    InfermarkCliTest.Outcome noDir = InfermarkCliTest.run("merge", dir.resolve("absent").toString());
    assertThat(noDir.code()).isEqualTo(Infermark.USAGE);
    assertThat(noDir.err()).contains("is not a directory");
    InfermarkCliTest.Outcome empty = InfermarkCliTest.run("merge", dir.toString());
    assertThat(empty.err()).contains("no shard files");
  }

  @Test
  void credentialsInTheUrlStayOutOfTheShardFile() throws IOException {
    assertThat(ShardFile.withoutSecrets("https://user:s3cret@host:8000/v1?key=abc")).isEqualTo("https://host:8000/v1");
    assertThat(ShardFile.withoutSecrets("http://host:8000")).isEqualTo("http://host:8000");
    List<String> args = shard(0, 1, dir, "--skip-test-request");
    args.set(args.indexOf("--base-url") + 1, "http://user:s3cret@127.0.0.1:" + sim.port());
    assertThat(run(args).code()).isZero();

    assertThat(Files.readString(dir.resolve("run.shard-0-of-1.records.jsonl"))).doesNotContain("s3cret");
    String facts = Files.readString(dir.resolve("run.shard-0-of-1.json"));
    assertThat(facts).doesNotContain("s3cret").contains("\"--base-url\" : [ \"http://127.0.0.1:" + sim.port() + "\" ]");
    assertThat(InfermarkCliTest.run("merge", dir.toString()).code()).isZero();
  }

  @Test
  void aShardThatLeftOnlyItsJournalIsRefusedByDefaultAndMergedMarkedPartialOnRequest() throws IOException {
    assertThat(run(shard(0, 2, dir, "--skip-test-request")).code()).isZero();
    assertThat(run(shard(1, 2, dir, "--skip-test-request")).code()).isZero();
    // Shard 1 evicted before its end: no facts file, and a journal without its end line.
    Files.delete(dir.resolve("run.shard-1-of-2.json"));
    Path journal = dir.resolve("run.shard-1-of-2.records.jsonl");
    List<String> lines = Files.readAllLines(journal);
    Files.write(journal, lines.subList(0, 1 + 4)); // the header and four records

    InfermarkCliTest.Outcome refused = InfermarkCliTest.run("merge", dir.toString());

    assertThat(refused.code()).isEqualTo(Infermark.USAGE);
    assertThat(refused.err()).contains("shard 1 of 2 never ended", "4 of its 10 records exist in "
        + "run.shard-1-of-2.records.jsonl", "--allow-partial");

    InfermarkCliTest.Outcome partial = InfermarkCliTest.run("merge", "--allow-partial", dir.toString());

    assertThat(partial.code()).as(partial.out() + partial.err()).isZero();
    assertThat(partial.out()).contains("PARTIAL (shard 1 of 2)", "INTERRUPTED");
    assertThat(partial.err()).contains("WARNING shard 1 of 2: the run never ended");
    JsonNode how = new ObjectMapper().readTree(dir.resolve("run.infermark.json").toFile()).get("run")
        .get("interruption");
    assertThat(how.get("reason").asText()).contains("shard 1 of 2: the process died");
    assertThat(how.get("completed").asLong()).isEqualTo(10 + 4);
    assertThat(how.get("unknown").asLong()).isEqualTo(6);
    assertThat(new ObjectMapper().readTree(dir.resolve("run.json").toFile()).get("interrupted").asBoolean()).isTrue();
  }
}
