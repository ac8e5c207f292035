package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.InfermarkCliTest.Outcome;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.workload.WorkloadTags;
import io.infermark.metrics.report.RecordsJsonl;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * vLLM's {@code --dataset-name timed_trace}: a small trace ({@code timed-trace-sample.jsonl}: six lines whose hash ids
 * share leading blocks) replayed against the simulator and a wire capture, its flags, and its bad input.
 */
class TimedTraceCliTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  /** The sample's lines: timestamp (ms), input length, output length. */
  private static final double[] TIMESTAMPS = {0, 150, 300, 300, 450.5, 600};
  private static final int[] INPUT = {80, 96, 64, 96, 40, 48};
  private static final int[] OUTPUT = {4, 3, 5, 2, 4, 3};

  private Path sample() throws IOException {
    try (InputStream in = getClass().getResourceAsStream("/timed-trace-sample.jsonl")) {
      Path p = dir.resolve("trace.jsonl");
      Files.write(p, in.readAllBytes());
      return p;
    }
  }

  private List<String> bench(String baseUrl, String model, Path trace, String... extra) {
    List<String> args = new ArrayList<>(List.of("bench", "--backend", "vllm", "--base-url", baseUrl, "--model", model,
        "--dataset-name", "timed_trace", "--dataset-path", trace.toString(), "--timed-trace-chunk-hash-size", "32",
        "--timed-trace-sec-multiplier", "0.001", "--max-concurrency", "1", "--skip-test-request", "--progress", "none",
        "--no-html", "--result-dir", dir.toString(), "--result-filename", "r.json"));
    args.addAll(List.of(extra));
    return args;
  }

  private static Outcome run(List<String> args) {
    return InfermarkCliTest.run(args.toArray(String[]::new));
  }

  private List<RequestRecord> records() {
    List<RequestRecord> records = new ArrayList<>(RecordsJsonl.read(dir.resolve("r.records.jsonl")));
    records.sort(Comparator.comparingLong(RequestRecord::index));
    return records;
  }

  @Test
  void everyLineIsOneRequestAtItsScaledTimestampAndSharedBlocksAreServedFromThePrefixCache() throws IOException {
    Path trace = sample();
    // The engine caches full 16-token blocks; one request at a time, so each line finds every earlier line cached.
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).seed(3)
        .build())) {
      Outcome o = run(bench("http://127.0.0.1:" + sim.port(), sim.config().model(), trace));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(o.out()).contains("timed_trace: the trace has 6 lines; sending each once")
          .contains("at the trace's timestamps x 0.001 s (0.000 to 0.600 s), at most 1 in flight")
          .contains("Successful requests:                     6");
      List<RequestRecord> records = records();
      assertThat(records).hasSize(6).allMatch(RequestRecord::succeeded).allMatch(RequestRecord::measured);
      // The cached tokens the trace's blocks allow: the longest word prefix shared with an earlier line, in full
      // 16-token blocks, at most (input - 1) / 16 blocks (the engine always computes a prompt's last token).
      // Line 4 repeats line 1's ids [1, 2, 3] further: line 1's cut third block is the start of line 4's.
      // Line 6's [1, 2] cut at 48 tokens matches 48, of which 2 blocks may be cached.
      int[] cached = {0, 64, 32, 80, 0, 32};
      for (int i = 0; i < 6; i++) {
        RequestRecord r = records.get(i);
        assertThat(r.intendedNanos()).as("line %d's intended time", i + 1)
            .isEqualTo(Math.round(TIMESTAMPS[i] * 0.001 * 1e9));
        assertThat(r.tags()).containsEntry(WorkloadTags.TRACE_LINE, Integer.toString(i + 1))
            .containsEntry(WorkloadTags.INPUT_TOKENS_REQUESTED, Integer.toString(INPUT[i]))
            .containsEntry(WorkloadTags.INPUT_TOKENS_ACHIEVED, Integer.toString(INPUT[i]));
        assertThat(r.usage().promptTokens()).as("line %d's prompt tokens, by the server", i + 1).hasValue(INPUT[i]);
        assertThat(r.usage().completionTokens()).as("line %d generates its output length", i + 1).hasValue(OUTPUT[i]);
        assertThat(r.usage().cachedPromptTokens()).as("line %d's cached prompt tokens", i + 1).hasValue(cached[i]);
      }
      JsonNode result = JSON.readTree(dir.resolve("r.json").toFile());
      assertThat(result.get("num_prompts").asInt()).isEqualTo(6);
      assertThat(result.get("total_input_tokens").asInt()).isEqualTo(Arrays.stream(INPUT).sum());
    }
  }

  @Test
  void linesWithTheSameLeadingHashIdsSendTheSameLeadingText() throws IOException {
    Path trace = sample();
    try (WireCapture server = new WireCapture()) {
      Outcome o = run(bench(server.baseUrl(), "m", trace));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      List<WireCapture.Received> sent = server.received();
      assertThat(sent).hasSize(6);
      List<List<String>> words = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        JsonNode body = sent.get(i).body();
        words.add(List.of(body.get("prompt").asText().split(" ")));
        assertThat(words.get(i)).as("line %d's words, one cl100k token each", i + 1).hasSize(INPUT[i]);
        assertThat(body.get("max_tokens").asInt()).isEqualTo(OUTPUT[i]);
        assertThat(body.get("ignore_eos").asBoolean()).as("vLLM forces ignore_eos for timed_trace").isTrue();
        assertThat(body.get("repetition_penalty").asDouble()).isEqualTo(1.0);
        assertThat(body.has("temperature")).isFalse();
      }
      List<String> l1 = words.get(0);
      assertThat(words.get(1).subList(0, 64)).as("[1, 2, 4] starts as [1, 2, 3]").isEqualTo(l1.subList(0, 64));
      assertThat(words.get(1).subList(64, 80)).isNotEqualTo(l1.subList(64, 80));
      assertThat(words.get(2).subList(0, 32)).as("[1, 5] starts as [1, 2, 3]").isEqualTo(l1.subList(0, 32));
      assertThat(words.get(2).subList(32, 64)).isNotEqualTo(l1.subList(32, 64));
      assertThat(words.get(3).subList(0, 80)).as("the same ids: line 1's cut block is the start of the full one")
          .isEqualTo(l1);
      assertThat(words.get(4).subList(0, 32)).as("[6, 7] shares nothing").isNotEqualTo(l1.subList(0, 32));
      assertThat(words.get(5)).isEqualTo(l1.subList(0, 48));
    }
  }

  @Test
  void theSixFlagsRenameTheLabelsSetTheBlockSizeAndScaleTheTimes() throws IOException {
    Path trace = Files.writeString(dir.resolve("renamed.jsonl"), String.join("\n",
        "{\"t\": \"0.2\", \"isl\": 20, \"osl\": 2, \"blocks\": [9, 8, 7]}",
        "{\"t\": 0.4, \"isl\": 24, \"osl\": 3, \"blocks\": [9, 8, 6]}",
        "",
        "{\"t\": 1, \"isl\": 12, \"osl\": 2, \"blocks\": [9]}",
        "{\"t\": 2, \"isl\": 8, \"osl\": 2, \"blocks\": [5]}") + "\n");
    try (WireCapture server = new WireCapture()) {
      // vLLM's spellings: underscores for dashes, the label flags, and --num-prompts taking the first lines
      Outcome o = run(List.of("bench", "serve", "--backend", "openai", "--base-url", server.baseUrl(), "--model", "m",
          "--dataset-name", "timed_trace", "--dataset-path", trace.toString(), "--timed_trace_chunk_hash_size", "8",
          "--timed-trace-sec-multiplier", "0.25", "--timed-trace-label-timestamp", "t",
          "--timed-trace-label-input-length", "isl", "--timed-trace-label-output-length", "osl",
          "--timed-trace-label-hash-ids", "blocks", "--num-prompts", "3", "--skip-test-request", "--progress", "none",
          "--no-html", "--result-dir", dir.toString(), "--result-filename", "r.json"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(o.out()).contains("3 requests, at the trace's timestamps x 0.25 s (0.050 to 0.250 s)")
          .contains("timed_trace: the first line is sent 0.050 s after the start");
      List<RequestRecord> records = records();
      assertThat(records).extracting(RequestRecord::intendedNanos).containsExactly(50_000_000L, 100_000_000L,
          250_000_000L);
      List<List<String>> words = server.received().stream()
          .sorted(Comparator.comparing(r -> r.body().get("max_tokens").asInt() * 100 + r.body().get("prompt")
              .asText().split(" ").length))
          .map(r -> List.of(r.body().get("prompt").asText().split(" "))).toList();
      assertThat(words).extracting(List::size).containsExactly(12, 20, 24);
      // blocks of 8: [9, 8, 7] and [9, 8, 6] share 16 words; [9] cut at 12 words is 9's block and 4 of its own
      assertThat(words.get(1).subList(0, 16)).isEqualTo(words.get(2).subList(0, 16));
      assertThat(words.get(1).subList(16, 20)).isNotEqualTo(words.get(2).subList(16, 20));
      assertThat(words.get(0).subList(0, 8)).isEqualTo(words.get(1).subList(0, 8));
      assertThat(o.out()).contains("timed_trace: 1 of 3 lines have fewer hash ids x --timed-trace-chunk-hash-size 8 "
          + "tokens than their input length");
    }
  }

  @Test
  void noSelfTimedSendsTheLinesAtTheRequestRate() throws IOException {
    Path trace = sample();
    try (WireCapture server = new WireCapture()) {
      Outcome o = run(bench(server.baseUrl(), "m", trace, "--no-self-timed", "--request-rate", "200",
          "--num-prompts", "4"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(o.out()).contains("4 requests, Poisson arrivals at 200.0 req/s");
      assertThat(records()).hasSize(4).extracting(r -> r.tags().get(WorkloadTags.TRACE_LINE))
          .containsExactly("1", "2", "3", "4");
      assertThat(server.received()).hasSize(4);
    }
  }

  @Test
  void badTraceInputIsAOneLineError() throws IOException {
    Map<String, String> traces = Map.of(
        "{\"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}",
        "has no field 'timestamp' (fields: input_length, output_length, hash_ids); name the field with "
            + "--timed-trace-label-timestamp",
        "{\"timestamp\": -1, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}",
        "line 1: timestamp -1 is negative or not finite",
        "{\"timestamp\": 5, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}\n"
            + "{\"timestamp\": 4, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}",
        "line 2: timestamp 4 is earlier than line 1's 5",
        "{\"timestamp\": 5, \"input_length\": 4, \"output_length\": 1}",
        "has no field 'hash_ids'",
        "{\"timestamp\": 5, \"input_length\": 0, \"output_length\": 1, \"hash_ids\": [1]}",
        "'input_length' must be a whole number of tokens >= 1, was 0",
        "not json",
        "line 1 is not JSON");
    int n = 0;
    for (Map.Entry<String, String> t : traces.entrySet()) {
      Path trace = Files.writeString(dir.resolve("bad" + n++ + ".jsonl"), t.getKey() + "\n");
      Outcome o = run(bench("http://127.0.0.1:1", "m", trace));
      assertThat(o.code()).as("%s: %s", t.getKey(), o.err()).isEqualTo(Infermark.USAGE);
      assertThat(o.err()).as(t.getKey()).contains(t.getValue());
      assertThat(o.err().lines().count()).as("one line: %s", o.err()).isEqualTo(1);
    }
    Map<List<String>, String> flags = new java.util.LinkedHashMap<>();
    flags.put(List.of("--timed-trace-chunk-hash-size", "0"), "--timed-trace-chunk-hash-size must be >= 1");
    flags.put(List.of("--timed-trace-sec-multiplier", "-1"), "--timed-trace-sec-multiplier must be finite and > 0");
    flags.put(List.of("--warmup-requests", "2"), "use --num-warmups");
    flags.put(List.of("--shard-index", "0", "--shard-count", "2"), "a self-timed trace is not split here");
    for (Map.Entry<List<String>, String> f : flags.entrySet()) {
      Outcome o = run(bench("http://127.0.0.1:1", "m", sample(), f.getKey().toArray(String[]::new)));
      assertThat(o.code()).as("%s: %s", f.getKey(), o.err()).isEqualTo(Infermark.USAGE);
      assertThat(o.err()).contains(f.getValue());
      assertThat(o.err().lines().count()).as("one line: %s", o.err()).isEqualTo(1);
    }
    // No --dataset-path is a usage error; a file that is not there cannot be read (exit 3, as for every dataset)
    List<String> noPath = new ArrayList<>(bench("http://127.0.0.1:1", "m", sample()));
    noPath.remove(noPath.indexOf("--dataset-path") + 1);
    noPath.remove("--dataset-path");
    Outcome o = run(noPath);
    assertThat(o.code()).isEqualTo(Infermark.USAGE);
    assertThat(o.err()).contains("--dataset-name timed_trace needs --dataset-path FILE");
    o = run(bench("http://127.0.0.1:1", "m", dir.resolve("missing.jsonl")));
    assertThat(o.code()).isEqualTo(Infermark.FAILED);
    assertThat(o.err()).contains("missing.jsonl is not a readable file");
    assertThat(o.err().lines().count()).isEqualTo(1);
  }

  @Test
  void sweepAndCapacitySendBenchsDefaultBodies() throws IOException {
    try (WireCapture server = new WireCapture()) {
      Outcome sweep = InfermarkCliTest.run("sweep", "--backend", "vllm", "--base-url", server.baseUrl(), "--model", "m",
          "--random-input-len", "8", "--random-output-len", "2", "--rates", "100", "--num-prompts", "3", "--no-html");
      assertThat(sweep.code()).as(sweep.out() + sweep.err()).isZero();
      Outcome capacity = InfermarkCliTest.run("capacity", "--backend", "openai-chat", "--base-url", server.baseUrl(),
          "--model", "m", "--random-input-len", "8", "--random-output-len", "2", "--objective", "e2e:p99:60000",
          "--start-rate", "100", "--max-runs", "1", "--num-prompts", "3");
      assertThat(capacity.code()).as(capacity.out() + capacity.err()).isIn(0, 1);
      List<WireCapture.Received> sent = server.received();
      assertThat(sent).hasSizeGreaterThanOrEqualTo(6);
      for (WireCapture.Received r : sent) {
        JsonNode b = r.body();
        boolean chat = r.path().endsWith("/chat/completions");
        assertThat(b.get("ignore_eos").asBoolean()).as("the random dataset on an OpenAI backend").isTrue();
        assertThat(b.has("temperature")).isFalse();
        if (chat) {
          assertThat(b.has("max_completion_tokens")).isTrue();
          assertThat(b.has("repetition_penalty")).isFalse();
        } else {
          assertThat(b.get("repetition_penalty").asDouble()).isEqualTo(1.0);
        }
      }
      assertThat(sent).anyMatch(r -> r.path().endsWith("/chat/completions"))
          .anyMatch(r -> r.path().endsWith("/v1/completions"));
    }
  }
}
