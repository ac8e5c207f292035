package io.infermark.cli;

import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Locust's own flags where they mean what Locust means (seed 000's {@code locust -f locustfile.py --headless -u 100
 * -r 10 --run-time 5m --csv PREFIX --host URL}): {@code --headless} (the command never has a web UI), {@code --csv}
 * (Locust's four CSV files) and {@code -f} (Python that infermark cannot run: it says what it sends instead). The
 * users, spawn rate and run time are {@link UserRampOptions}; {@code --host URL} is
 * {@link io.infermark.cli.options.TargetOptions}'.
 */
final class LocustOptions {

  /** The system message sent with {@code -f}: the role-marked chat request the seed's locustfile describes. */
  static final String SYSTEM_MESSAGE = "You are a helpful assistant.";

  @Option(names = "--headless", description = "Locust's --headless: accepted; infermark never has a web UI.")
  boolean headless;

  @Option(names = "--csv", paramLabel = "PREFIX", description = "Locust's --csv: also write PREFIX_stats.csv, "
      + "PREFIX_stats_history.csv, PREFIX_failures.csv and PREFIX_exceptions.csv with Locust's columns (a relative "
      + "PREFIX goes under --result-dir when given).")
  String csv;

  @Option(names = {"-f", "--locustfile"}, paramLabel = "FILE", description = "Locust's -f: Python infermark cannot "
      + "run; it says in one line what it sends instead (streaming chat with a system and a user message) and goes on.")
  String locustfile;

  /** Where the CSV files go: the prefix, under {@code resultDir} when it is relative and one was given. */
  Optional<Path> csvPrefix(Path resultDir) {
    if (csv == null) {
      return Optional.empty();
    }
    if (csv.isBlank()) {
      throw new IllegalArgumentException("--csv needs a file name prefix, e.g. --csv run1");
    }
    Path p = Path.of(csv);
    return Optional.of(resultDir != null && !p.isAbsolute() ? resultDir.resolve(p) : p);
  }

  /** The one line {@code -f} prints, if given. */
  Optional<String> locustfileNotice(String url, boolean chat) {
    if (locustfile == null) {
      return Optional.empty();
    }
    return Optional.of(locustfile + ": infermark does not run Locust's Python; it sends instead, as seed 000's "
        + "locustfile describes, streaming " + (chat ? "chat completions with a system and a user message"
        : "completions (the endpoint is not chat, so no roles)") + " to " + url + ", reading finish_reason and usage "
        + "from each reply");
  }
}
