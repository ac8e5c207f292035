package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.cli.InfermarkCliTest.Outcome;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@code vllm bench serve} command line of vLLM's benchmarking docs ({@code vllm-doc-commands.txt}, with the
 * vLLM commit they came from) run as {@code infermark} against the simulator: those infermark supports run and write
 * vLLM's result file, the others stop with one line saying why, never "Unknown option".
 */
class VllmDocCommandsTest {

  @TempDir
  Path dir;

  /** A simulator serving the model the command names (the docs' models; the simulator serves one by name). */
  private static Simulator simulatorFor(List<String> words) {
    int at = words.indexOf("--model");
    SimulatorConfig.Builder b = SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(1))
        .interTokenInterval(Duration.ZERO);
    if (at >= 0) {
      b.model(words.get(at + 1));
    }
    return Simulator.start(b.build());
  }

  /** One fixture line: what is expected, and the command as vLLM's docs print it. */
  record DocCommand(String expect, String line) {
    @Override
    public String toString() {
      return expect + ": " + line.substring(0, Math.min(line.length(), 140));
    }
  }

  static Stream<DocCommand> commands() throws IOException {
    return fixture("vllm-doc-commands.txt").stream().filter(l -> !l.isBlank() && !l.startsWith("#")).map(l -> {
      int colon = l.indexOf(": ");
      return new DocCommand(l.substring(0, colon), l.substring(colon + 2));
    });
  }

  static List<String> fixture(String name) throws IOException {
    try (InputStream in = VllmDocCommandsTest.class.getResourceAsStream("/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
  }

  /** Shell words: spaces separate, '...' and "..." quote (enough for the docs' command lines). */
  static List<String> words(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    boolean any = false;
    char quote = 0;
    for (char c : line.toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          w.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        any = true;
      } else if (c == ' ') {
        if (any || w.length() > 0) {
          out.add(w.toString());
        }
        w.setLength(0);
        any = false;
      } else {
        w.append(c);
      }
    }
    if (any || w.length() > 0) {
      out.add(w.toString());
    }
    return out;
  }

  /** The line with the downloads it names replaced by small files of the same formats. */
  private String withFiles(String line) throws IOException {
    Path sharegpt = Files.writeString(dir.resolve("ShareGPT_V3_unfiltered_cleaned_split.json"), "["
        + "{\"id\": \"a\", \"conversations\": [{\"from\": \"human\", \"value\": \"What is the capital of France? "
        + "Answer in one sentence please.\"}, {\"from\": \"gpt\", \"value\": \"The capital of France is Paris, "
        + "a city on the Seine.\"}]},"
        + "{\"id\": \"b\", \"conversations\": [{\"from\": \"human\", \"value\": \"Name three prime numbers and "
        + "say why each is prime.\"}, {\"from\": \"gpt\", \"value\": \"Two, three and five: each has no divisor "
        + "but one and itself.\"}]}]");
    Path custom = Files.writeString(dir.resolve("data.jsonl"), "{\"prompt\": \"What is the capital of India?\"}\n"
        + "{\"prompt\": \"What is the capital of Iran?\"}\n{\"prompt\": \"What is the capital of China?\"}\n");
    Path spec = dir.resolve("data/spec_bench/question.jsonl");
    Files.createDirectories(spec.getParent());
    Files.writeString(spec, "{\"question_id\": 1, \"category\": \"writing\", \"turns\": [\"Write a haiku about "
        + "autumn.\"]}\n{\"question_id\": 2, \"category\": \"summarization\", \"turns\": [\"Summarize: the cat sat "
        + "on the mat all day.\"]}\n{\"question_id\": 3, \"category\": \"math\", \"turns\": [\"What is 7 * 8?\"]}\n");
    return line.replace("<your data path>/ShareGPT_V3_unfiltered_cleaned_split.json", sharegpt.toString())
        .replace("<path-to-your-data-jsonl>", custom.toString())
        .replace("<YOUR_DOWNLOADED_PATH>", dir.toString());
  }

  @ParameterizedTest
  @MethodSource("commands")
  void runsAsInfermarkWithOnlyTheProgramNameReplaced(DocCommand c) throws IOException {
    List<String> words = words(withFiles(c.line()));
    assertThat(words.subList(0, 3)).containsExactly("vllm", "bench", "serve");
    List<String> args = new ArrayList<>(words.subList(1, words.size())); // `infermark` + the rest
    if (c.expect().equals("run 8")) {
      args.addAll(List.of("--num-prompts", "8"));
    }
    Outcome o;
    try (Simulator sim = simulatorFor(words)) {
      args.addAll(List.of("--base-url", "http://127.0.0.1:" + sim.port(), "--result-dir",
          dir.resolve("out").toString(), "--progress", "none"));
      o = InfermarkCliTest.run(args.toArray(String[]::new));
    }
    assertThat(o.err()).doesNotContainIgnoringCase("unknown option").doesNotContain("Unmatched argument");
    if (c.expect().startsWith("run")) {
      assertThat(o.code()).as("%s%n%s", o.out(), o.err()).isZero();
      assertThat(o.out()).contains("Serving Benchmark Result");
      try (Stream<Path> files = Files.list(dir.resolve("out"))) {
        assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.endsWith(".json")
            && !n.endsWith(".infermark.json"));
      }
    } else {
      assertThat(o.code()).as("%s%n%s", o.out(), o.err()).isEqualTo(Infermark.USAGE);
      assertThat(o.err().strip().lines().filter(l -> !l.startsWith("warning:")).count()).as(o.err()).isEqualTo(1);
    }
  }
}
