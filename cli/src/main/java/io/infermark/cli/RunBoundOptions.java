package io.infermark.cli;

import io.infermark.cli.options.DurationText;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The options that bound a run, shared by {@code bench}, {@code sweep} and {@code capacity}: how many requests
 * ({@code --num-prompts}), how long a stopped run drains ({@code --drain-timeout}) and how long the whole command
 * may last ({@code --max-duration}). Each is a small mixin so a command takes only the ones it has, where it
 * lists them; the help texts are the command's own (key {@code num-prompts}, {@code drain-timeout},
 * {@code max-duration} in its resource bundle under {@code io/infermark/cli/help/}), as they speak of a run, a
 * level or a probe.
 */
final class RunBoundOptions {

  private RunBoundOptions() {}

  /** {@code --num-prompts}: requests to send; the default is the command's. */
  static final class NumPrompts {
    @Option(names = "--num-prompts", descriptionKey = "num-prompts")
    int value;

    /** With the command's default. */
    NumPrompts(int defaultValue) {
      this.value = defaultValue;
    }
  }

  /** {@code --drain-timeout}: how long requests in flight get to finish when a run is stopped (default 15 s). */
  static final class DrainTimeout {
    @Option(names = "--drain-timeout", paramLabel = "SECONDS", defaultValue = "15", descriptionKey = "drain-timeout")
    double seconds;

    /** The drain timeout, validated. */
    Duration duration() {
      return duration(seconds);
    }

    /** A --drain-timeout in seconds, validated. */
    static Duration duration(double seconds) {
      if (!(seconds >= 0) || Double.isInfinite(seconds)) {
        throw new IllegalArgumentException("--drain-timeout must be a number of seconds >= 0, was " + seconds);
      }
      return Duration.ofNanos(Math.round(seconds * 1e9));
    }
  }

  /** {@code --max-duration}: the bound on the whole command (90s, 30m, 2h); none by default. */
  static final class MaxDuration {
    @Option(names = "--max-duration", paramLabel = "DURATION", converter = DurationText.class,
        descriptionKey = "max-duration")
    Duration value;

    /** The deadline from now, or none without --max-duration. */
    LevelRunner.Deadline deadline() {
      return LevelRunner.Deadline.after(Optional.ofNullable(value));
    }
  }
}
