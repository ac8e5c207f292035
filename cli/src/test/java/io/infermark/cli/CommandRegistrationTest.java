package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;

/**
 * The command line reads only the command asked for (picocli builds a model of every option of every command it
 * is given), and still shows every command where help, errors or suggestions need them.
 */
class CommandRegistrationTest {

  private static final List<String> ALL = List.of("bench", "sweep", "capacity", "capacity-card", "sim", "report",
      "explain", "merge", "scenario", "help");

  private static CommandLine forArgs(String... args) {
    return Infermark.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), args);
  }

  @Test
  void aNamedCommandIsTheOnlyOneRead() {
    assertThat(forArgs("merge", "a", "b").getSubcommands()).containsOnlyKeys("merge");
    assertThat(forArgs("sim", "--port", "0").getSubcommands()).containsOnlyKeys("sim");
    CommandLine bench = forArgs("bench", "--base-url", "http://127.0.0.1:8000").getSubcommands().get("bench");
    assertThat(bench.getSubcommands()).doesNotContainKey("sweep");
  }

  @Test
  void helpNoArgumentsAndUnknownCommandsSeeEveryCommandInTheirOrder() {
    for (String[] args : List.of(new String[0], new String[] {"--help"}, new String[] {"help", "bench"},
        new String[] {"bnch"})) {
      assertThat(forArgs(args).getSubcommands().keySet()).as(String.join(" ", args)).containsExactlyElementsOf(ALL);
    }
  }

  @Test
  void benchShowsItsSweepFamilyWhenAskedForOrInItsHelp() {
    assertThat(forArgs("bench", "sweep", "serve", "--dry-run").getSubcommands().get("bench").getSubcommands())
        .containsKey("sweep");
    assertThat(forArgs("bench", "--help").getSubcommands().get("bench").getSubcommands()).containsKey("sweep");
    assertThat(forArgs("bench").getSubcommands().get("bench").getSubcommands()).containsKey("sweep");
  }

  @Test
  void theCommandsAreTheOnesTheInfermarkClassDeclaresInItsOrder() {
    // new CommandLine(new Infermark()) still gives the whole tree, for whoever builds a parser from the class
    assertThat(new CommandLine(new Infermark()).getSubcommands().keySet()).containsExactlyElementsOf(ALL);
  }

  @Test
  void anUnknownCommandStillGetsASuggestion() {
    StringWriter err = new StringWriter();
    int code = Infermark.run(new PrintWriter(new StringWriter()), new PrintWriter(err, true), "bnch");
    assertThat(code).isEqualTo(Infermark.USAGE);
    assertThat(err.toString()).contains("Did you mean").contains("bench");
  }
}
