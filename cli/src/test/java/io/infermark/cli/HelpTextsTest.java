package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;

/**
 * Every command's help renders as written: picocli runs option descriptions through {@code String.format}, so a
 * bare {@code %} (as in "92%") makes every {@code --help} print a warning to the user's terminal and show the raw
 * text.
 */
class HelpTextsTest {

  @Test
  void everyCommandsHelpRendersWithoutAFormatWarning() {
    PrintStream err = System.err;
    ByteArrayOutputStream warnings = new ByteArrayOutputStream();
    System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
    try {
      render(new CommandLine(new Infermark()));
    } finally {
      System.setErr(err);
    }
    assertThat(warnings.toString(StandardCharsets.UTF_8)).doesNotContain("Could not format");
  }

  private static void render(CommandLine cl) {
    assertThat(cl.getUsageMessage()).isNotBlank();
    cl.getSubcommands().values().forEach(HelpTextsTest::render);
  }
}
