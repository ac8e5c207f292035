package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.cli.InfermarkCliTest.Outcome;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every shell block of README.md and docs/ that runs {@code infermark} is run as the shell script it is, against
 * the simulator, so a documented command cannot silently stop working. Changed for the test only: {@code java -jar
 * cli/target/infermark.jar} and {@code infermark} run this build's classes; the documented address
 * (http://127.0.0.1:8000) is the simulator's, which serves the model the block names (its own {@code sim} line is
 * checked for its options, not started); bench, sweep and capacity get {@code --num-prompts 8} appended (bench
 * also {@code --progress none}; a repeated flag's last value wins) so the block takes seconds; {@code kubectl} lines are left out; and
 * the files a block reads from earlier runs ({@code out/run-a.json}, ...) are made by a bench run first, and a session
 * trace it replays ({@code mooncake-conversation.jsonl}) is the public Mooncake sample's first 20 lines. Each
 * command must exit 0, or 1 when the gate the block sets fails on this machine: never 2 (a bad command line) or 3.
 */
class DocCommandLinesTest {

  private static final Pattern BLOCK = Pattern.compile("```(?:sh|bash|shell)\\n(.*?)```", Pattern.DOTALL);

  @TempDir
  Path dir;

  /** One shell block: the page it is on and its text. */
  record Block(String page, String text) {
    @Override
    public String toString() {
      return page + ": " + text.lines().filter(l -> l.contains("infermark")).findFirst().orElse("").strip();
    }
  }

  static Stream<Block> blocks() throws IOException {
    List<Path> pages = new ArrayList<>(List.of(Path.of("..", "README.md")));
    try (DirectoryStream<Path> docs = Files.newDirectoryStream(Path.of("..", "docs"), "*.md")) {
      docs.forEach(pages::add);
    }
    List<Block> blocks = new ArrayList<>();
    for (Path page : pages.stream().sorted().toList()) {
      Matcher m = BLOCK.matcher(Files.readString(page));
      while (m.find()) {
        if (Pattern.compile("(?m)^\\s*(java -jar cli/target/infermark\\.jar|infermark) ").matcher(m.group(1)).find()) {
          blocks.add(new Block(page.getFileName().toString(), m.group(1)));
        }
      }
    }
    assertThat(blocks).as("documented command blocks").hasSizeGreaterThanOrEqualTo(6);
    return blocks.stream();
  }

  /** The block as it runs here (see the class comment). */
  private static String script(String block, String baseUrl) {
    List<String> lines = new ArrayList<>();
    List<String> raw = block.replace("java -jar cli/target/infermark.jar", "infermark").lines().toList();
    boolean kubectl = raw.stream().anyMatch(l -> l.startsWith("kubectl"));
    for (int i = 0; i < raw.size(); i++) {
      String l = raw.get(i);
      if (kubectl && !l.startsWith("infermark ")) {
        continue; // the cluster's part; the infermark lines are what this test runs
      }
      if (l.matches("\\s*infermark sim .*&\\s*")) {
        continue; // the test's simulator serves
      }
      lines.add(l.replace("http://127.0.0.1:8000", baseUrl));
    }
    return String.join("\n", lines) + "\nwait\n";
  }

  private void prepare(String block, String model, String baseUrl) throws IOException {
    if (block.contains("mooncake-conversation.jsonl")) { // a session trace the block replays: the public sample's head
      List<String> head = Files.readAllLines(Path.of("..", "core", "src", "test", "resources", "traces",
          "mooncake-conversation-first300.jsonl")).subList(0, 20);
      Files.write(dir.resolve("mooncake-conversation.jsonl"), head);
    }
    record Needed(String file, String dir, String name) {}
    for (Needed n : List.of(new Needed("out/run-a.json", "out", "run-a.json"),
        new Needed("out/run-b.json", "out", "run-b.json"), new Needed("out/run.records.jsonl", "out", "run.json"),
        new Needed("results/run.records.jsonl", "results", "run.json"))) {
      if (block.contains(n.file()) && !block.contains("--result-filename " + n.name())) {
        Outcome o = InfermarkCliTest.run("bench", "--base-url", baseUrl, "--model", model, "--random-input-len", "16",
            "--random-output-len", "8", "--num-prompts", "12", "--max-concurrency", "2", "--progress", "none",
            "--result-dir", dir.resolve(n.dir()).toString(), "--result-filename", n.name());
        assertThat(o.code()).as(o.err()).isZero();
      }
    }
  }

  @ParameterizedTest
  @MethodSource("blocks")
  void everyDocumentedCommandRuns(Block b) throws Exception {
    Matcher model = Pattern.compile("--model (\\S+)").matcher(b.text());
    String name = model.find() ? model.group(1) : "infermark-sim";
    Matcher sim = Pattern.compile("infermark sim (.*?)\\s*&").matcher(b.text()
        .replace("java -jar cli/target/infermark.jar", "infermark"));
    while (sim.find()) {
      SimCommand.parse(VllmDocCommandsTest.words(sim.group(1).strip())); // the documented simulator's options are valid
    }
    try (Simulator s = Simulator.start(SimulatorConfig.builder().port(0).model(name)
        .timeToFirstToken(Duration.ofMillis(1)).interTokenInterval(Duration.ofMillis(1)).build())) {
      String base = "http://127.0.0.1:" + s.port();
      prepare(b.text(), name, base);
      String script = "infermark() {\n"
          + "  case \"$1\" in bench) set -- \"$@\" --num-prompts 8 --progress none ;;\n"
          + "    sweep|capacity) set -- \"$@\" --num-prompts 8 ;; esac\n"
          + "  \"$JAVA\" -XX:TieredStopAtLevel=1 -XX:-UsePerfData -cp \"$CP\" io.infermark.cli.Infermark \"$@\" "
          + ">> commands.log 2>&1\n"
          + "  rc=$?\n"
          + "  echo \"$1 $rc\" >> rc.log\n"
          + "}\n" + script(b.text(), base);
      Files.writeString(dir.resolve("block.sh"), script);
      ProcessBuilder pb = new ProcessBuilder("/bin/sh", "block.sh").directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(dir.resolve("sh.log").toFile());
      pb.environment().put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
      pb.environment().put("CP", System.getProperty("java.class.path"));
      Process p = pb.start();
      try {
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("the block finished").isTrue();
      } finally {
        p.destroyForcibly();
      }
      String log = Files.exists(dir.resolve("commands.log")) ? Files.readString(dir.resolve("commands.log")) : "";
      List<String> codes = Files.readAllLines(dir.resolve("rc.log"));
      long commands = script(b.text(), base).lines().filter(l -> l.strip().startsWith("infermark ")).count();
      assertThat(codes).as("one exit code a command; log:%n%s", log).hasSizeGreaterThanOrEqualTo((int) commands);
      assertThat(codes).as("no command line error or failure; log:%n%s%nscript:%n%s", log, script)
          .allSatisfy(c -> assertThat(c).matches("\\S+ [01]"));
      assertThat(log).doesNotContainIgnoringCase("unknown option");
    }
  }

}
