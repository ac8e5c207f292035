package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import org.junit.jupiter.api.Test;

/** The shared run-bound options keep each command's own default and help text (defaults filled in). */
class RunBoundOptionsTest {

  private static OptionSpec option(String command, String name) {
    CommandLine cl = Infermark.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    return cl.getSubcommands().get(command).getCommandSpec().findOption(name);
  }

  private static String help(String command, String name) {
    return String.join(" ", option(command, name).description());
  }

  @Test
  void eachCommandKeepsItsDefaultsAndHelpTexts() {
    assertThat(option("bench", "--num-prompts").defaultValueString()).isEqualTo("1000");
    assertThat(option("sweep", "--num-prompts").defaultValueString()).isEqualTo("200");
    assertThat(option("capacity", "--num-prompts").defaultValueString()).isEqualTo("200");
    assertThat(help("bench", "--num-prompts"))
        .isEqualTo("Requests to send; -1 sends every row of a dataset file once (default: 1000).");
    assertThat(help("sweep", "--num-prompts")).isEqualTo("Requests per level (default: 200).");
    assertThat(help("capacity", "--num-prompts")).isEqualTo("Requests per probe (default: 200).");
    assertThat(help("bench", "--drain-timeout")).isEqualTo("After SIGINT or SIGTERM, how long requests in flight get "
        + "to finish before they are cancelled; a second signal cancels them at once (default: 15, well "
        + "under Kubernetes' 30 s grace).");
    assertThat(help("sweep", "--drain-timeout")).isEqualTo("When a level is stopped (signal, --max-duration), how long "
        + "its requests in flight get to finish (default: 15).");
    assertThat(help("capacity", "--drain-timeout")).isEqualTo("When a probe is stopped (signal, --max-duration), how "
        + "long its requests in flight get to finish (default: 15).");
    assertThat(help("sweep", "--max-duration")).isEqualTo("Bound on the whole sweep (90s, 30m, 2h): a level still "
        + "running then is stopped and kept, and no further level starts.");
    assertThat(help("capacity", "--max-duration")).isEqualTo("Bound on the whole search (90s, 30m, 2h): a probe still "
        + "running then is stopped, and the capacity is the best found so far.");
    assertThat(option("bench", "--max-duration")).isNull();
    assertThat(option("sweep", "--drain-timeout").defaultValueString()).isEqualTo("15");
  }

  @Test
  void aDrainTimeoutIsSecondsAtLeastZero() {
    assertThat(RunBoundOptions.DrainTimeout.duration(1.5)).isEqualTo(Duration.ofMillis(1500));
    assertThat(RunBoundOptions.DrainTimeout.duration(0)).isEqualTo(Duration.ZERO);
    assertThatThrownBy(() -> RunBoundOptions.DrainTimeout.duration(-1))
        .hasMessage("--drain-timeout must be a number of seconds >= 0, was -1.0");
    assertThatThrownBy(() -> RunBoundOptions.DrainTimeout.duration(Double.NaN))
        .hasMessageContaining("--drain-timeout must be a number of seconds >= 0");
  }
}
