package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.CommandSpec;

/**
 * docs/cli.md's table of vLLM's flags checked against the kept option list of vLLM's newest {@code serve.py} parser
 * ({@code vllm-serve-options.txt}): every listed option is taken by {@code infermark bench} (so never "Unknown
 * option"), and the table names it with its status here (same, accepted or refused, with why).
 */
class VllmOptionListTest {

  private static List<String> vllmOptions() throws IOException {
    return VllmDocCommandsTest.fixture("vllm-serve-options.txt").stream().map(String::strip)
        .filter(l -> l.startsWith("--")).toList();
  }

  /** The rows of docs/cli.md's "Every flag of `vllm bench serve`" table: each flag named in a row, and its status. */
  private static Map<String, String> documented() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "cli.md"));
    int from = doc.indexOf("### Every flag of `vllm bench serve`");
    int to = doc.indexOf("\n#", from + 10);
    assertThat(from).as("the table's heading").isPositive();
    Map<String, String> status = new HashMap<>();
    for (String line : doc.substring(from, to < 0 ? doc.length() : to).lines().toList()) {
      if (!line.startsWith("| `")) {
        continue;
      }
      String[] cells = line.split("(?<!\\\\)\\|");
      Matcher m = Pattern.compile("`(--[a-z0-9-]+)").matcher(cells[1]);
      while (m.find()) {
        status.putIfAbsent(m.group(1), cells[2].strip());
      }
    }
    return status;
  }

  @Test
  void theListIsTheNewestParsers() throws IOException {
    List<String> options = vllmOptions();
    assertThat(options).doesNotHaveDuplicates().hasSize(105)
        .contains("--timed-trace-label-hash-ids", "--speed-bench-dataset-subset", "--bfcl-categories",
            "--custom-ensure-client-side-data", "--enable-multimodal-chat", "--asr-min-audio-len-sec");
  }

  @Test
  void benchTakesEveryOptionOfVllmsParser() throws IOException {
    CommandSpec bench = Infermark.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()))
        .getSubcommands().get("bench").getCommandSpec();
    List<String> missing = new ArrayList<>();
    for (String option : vllmOptions()) {
      if (!bench.optionsMap().containsKey(option) && !bench.negatedOptionsMap().containsKey(option)) {
        missing.add(option);
      }
    }
    assertThat(missing).as("vLLM options infermark bench would call unknown").isEmpty();
  }

  @Test
  void docsTableNamesEveryOptionWithItsStatus() throws IOException {
    Map<String, String> documented = documented();
    List<String> undocumented = new ArrayList<>();
    for (String option : vllmOptions()) {
      String status = documented.get(option);
      if (status == null || status.isEmpty()) {
        undocumented.add(option);
      } else if (status.startsWith("refused")) {
        assertThat(status).as("%s is refused with a reason", option).matches("refused\\b.*[:(].+");
      }
    }
    assertThat(undocumented).as("vLLM options missing from docs/cli.md's table").isEmpty();
  }
}
