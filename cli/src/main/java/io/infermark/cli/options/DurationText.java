package io.infermark.cli.options;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine;

/**
 * A duration as people type it on a command line: {@code 90} or {@code 90s} (seconds), {@code 30m},
 * {@code 2h}, {@code 1.5h}, or an ISO-8601 duration ({@code PT1H30M}).
 */
public final class DurationText implements CommandLine.ITypeConverter<Duration> {

  /** The converter picocli instantiates. */
  public DurationText() {}

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /**
   * Parses a duration.
   *
   * @throws IllegalArgumentException if the text is not a positive duration
   */
  public static Duration parse(String value) {
    String t = value.strip().toLowerCase(Locale.ROOT);
    Duration d;
    try {
      if (t.startsWith("p")) {
        d = Duration.parse(t.toUpperCase(Locale.ROOT));
      } else {
        double unit = 1;
        if (t.endsWith("ms")) {
          unit = 1e-3;
          t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
          t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
          unit = 60;
          t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("h")) {
          unit = 3600;
          t = t.substring(0, t.length() - 1);
        }
        double seconds = Double.parseDouble(t.strip()) * unit;
        if (!Double.isFinite(seconds)) {
          throw new NumberFormatException(value);
        }
        d = Duration.ofNanos(Math.round(seconds * 1e9));
      }
    } catch (RuntimeException e) {
      throw new CommandLine.TypeConversionException("'" + value + "' is not a duration: give seconds (90, 90s), "
          + "minutes (30m), hours (2h) or ISO-8601 (PT1H30M)");
    }
    if (d.isNegative() || d.isZero()) {
      throw new CommandLine.TypeConversionException("a duration must be > 0, was '" + value + "'");
    }
    return d;
  }
}
