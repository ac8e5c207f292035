package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.InfermarkCliTest.Outcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * vLLM's parser conventions on {@code bench}: {@code bench serve}, underscores, unambiguous prefixes, a repeated
 * flag's last value, {@code --config FILE}, and the values vLLM gives a meaning ({@code --num-prompts -1},
 * {@code --custom-output-len -1}, the JSON {@code --random-range-ratio}), checked on the wire.
 */
class VllmConventionsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private List<String> bench(WireCapture server, String... extra) {
    List<String> args = new ArrayList<>(List.of("bench", "serve", "--backend", "openai-chat", "--base-url",
        server.baseUrl(), "--model", "m", "--progress", "none", "--no-html", "--result-dir", dir.toString(),
        "--result-filename", "r.json"));
    args.addAll(List.of(extra));
    return args;
  }

  private static Outcome run(List<String> args) {
    return InfermarkCliTest.run(args.toArray(String[]::new));
  }

  /** The generation limit a body asks for, under either of OpenAI's names; -1 when it sets none. */
  private static int maxTokens(JsonNode body) {
    JsonNode n = body.has("max_completion_tokens") ? body.get("max_completion_tokens") : body.path("max_tokens");
    return n.isMissingNode() ? -1 : n.asInt();
  }

  /** The run's requests (the first request received is bench's uncounted test request). */
  private static List<JsonNode> runBodies(WireCapture server) {
    List<WireCapture.Received> all = server.received();
    return all.subList(1, all.size()).stream().map(WireCapture.Received::body).toList();
  }

  @Test
  void underscoresPrefixesAndTheLastOfARepeatedFlagWork() throws IOException {
    try (WireCapture server = new WireCapture()) {
      Outcome o = run(bench(server, "--random_input_len", "16", "--random-output_len", "4", "--num-prom", "2",
          "--num-prompts", "3", "--max-conc", "1"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(runBodies(server)).hasSize(3).allSatisfy(b -> assertThat(maxTokens(b)).isEqualTo(4));
    }
  }

  @Test
  void jsonArgumentsByPartsAreMergedAsVllmMergesThem() throws IOException {
    try (WireCapture server = new WireCapture()) {
      Outcome o = run(bench(server, "--random-input-len", "8", "--random-output-len", "2", "--num-prompts", "2",
          "--extra-body.custom", "x", "--extra_body.nested.a", "1", "--extra-body.tags+", "p,q"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(runBodies(server)).hasSize(2).allSatisfy(b -> {
        assertThat(b.get("custom").asText()).isEqualTo("x");
        assertThat(b.get("nested").get("a").asInt()).isEqualTo(1);
        assertThat(b.get("tags").toString()).isEqualTo("[\"p\",\"q\"]");
      });
    }
  }

  @Test
  void anAmbiguousPrefixIsAOneLineUsageError() {
    Outcome o = InfermarkCliTest.run("bench", "serve", "--ra", "3", "--model", "m");
    assertThat(o.code()).isEqualTo(Infermark.USAGE);
    assertThat(o.err()).startsWith("infermark bench: ambiguous option: --ra could match ")
        .contains("--ramp-up-strategy", "--random-input-len");
  }

  @Test
  void aConfigFileGivesOptionsAndTheCommandLineOverridesThem() throws IOException {
    Path config = Files.writeString(dir.resolve("bench.yaml"), "num_prompts: 2\nrandom-output-len: 6\n"
        + "random_input_len: 12\nignore_eos: true\nmax_concurrency: 1\nmetadata:\n  - team=perf\n  - tp=1\n");
    try (WireCapture server = new WireCapture()) {
      Outcome o = run(bench(server, "--config", config.toString(), "--num-prompts", "3"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      List<JsonNode> bodies = runBodies(server);
      assertThat(bodies).as("the command line's --num-prompts wins over the file's").hasSize(3);
      assertThat(bodies).allSatisfy(b -> {
        assertThat(maxTokens(b)).isEqualTo(6);
        assertThat(b.path("ignore_eos").asBoolean()).isTrue();
      });
      JsonNode result = JSON.readTree(dir.resolve("r.json").toFile());
      assertThat(result.path("team").asText()).isEqualTo("perf");
      assertThat(result.path("max_concurrency").asInt()).isEqualTo(1);
    }
    Outcome notYaml = InfermarkCliTest.run("bench", "--config", dir.resolve("bench.json").toString());
    assertThat(notYaml.code()).isEqualTo(Infermark.USAGE);
    assertThat(notYaml.err()).contains("--config must name a .yaml or .yml file");
  }

  @Test
  void theJsonRangeRatioVariesEachLengthByItsOwnRatio() throws IOException {
    try (WireCapture server = new WireCapture()) {
      Outcome o = run(bench(server, "--random-input-len", "100", "--random-output-len", "8", "--num-prompts", "20",
          "--random-range-ratio", "{\"input\": 0.5}", "--save-detailed"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(runBodies(server)).allSatisfy(b -> assertThat(maxTokens(b)).as("output ratio 0").isEqualTo(8));
      Set<Integer> inputs = new HashSet<>();
      JSON.readTree(dir.resolve("r.json").toFile()).get("input_lens").forEach(n -> inputs.add(n.asInt()));
      assertThat(inputs).hasSizeGreaterThan(1).allSatisfy(n -> assertThat(n).isBetween(50, 150));
    }
    Outcome bad = InfermarkCliTest.run("bench", "--model", "m", "--base-url", "http://127.0.0.1:1",
        "--random-range-ratio", "{\"in\": 0.5}");
    assertThat(bad.code()).isEqualTo(Infermark.USAGE);
    assertThat(bad.err()).contains("--random-range-ratio as JSON takes");
  }

  @Test
  void numPromptsAndCustomOutputLenMinusOneSendEveryRowWithItsOwnLength() throws IOException {
    Path custom = Files.writeString(dir.resolve("data.jsonl"), "{\"prompt\": \"one\", \"output_tokens\": 5}\n"
        + "{\"prompt\": \"two\", \"output_tokens\": 7}\n{\"prompt\": \"three\"}\n");
    try (WireCapture server = new WireCapture()) {
      Outcome o = run(bench(server, "--dataset-name", "custom", "--dataset-path", custom.toString(),
          "--custom-output-len", "-1", "--num-prompts", "-1", "--disable-shuffle", "--max-concurrency", "1"));

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(o.out()).contains("--num-prompts -1: the dataset has 3 prompts; sending each once");
      assertThat(runBodies(server).stream().map(VllmConventionsTest::maxTokens)).containsExactly(5, 7, -1);
    }
  }
}
