package io.infermark.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * The width of the terminal a progress line is rewritten on: {@code COLUMNS} when it is set (shells do
 * not export it by default; the launcher does), otherwise what {@code stty size} reads from the
 * controlling terminal, otherwise 80. A line longer than the terminal wraps, and {@code \r} then rewrites
 * only its last row, leaving the others behind.
 */
final class TerminalWidth {

  /** The width assumed when nothing says otherwise. */
  static final int DEFAULT = 80;

  private TerminalWidth() {}

  /** The width of the terminal, in columns. */
  static int detect() {
    return fromEnvironment(System.getenv()).orElseGet(() -> fromStty().orElse(DEFAULT));
  }

  /** {@code COLUMNS}, when it is a positive number. */
  static OptionalInt fromEnvironment(Map<String, String> env) {
    return parse(env.get("COLUMNS"));
  }

  static OptionalInt parse(String text) {
    if (text == null) {
      return OptionalInt.empty();
    }
    try {
      int columns = Integer.parseInt(text.strip());
      return columns > 0 ? OptionalInt.of(columns) : OptionalInt.empty();
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }

  /** {@code stty size} ("rows columns") on the controlling terminal; empty without one. */
  private static OptionalInt fromStty() {
    File tty = new File("/dev/tty");
    if (!tty.canRead()) {
      return OptionalInt.empty();
    }
    try {
      Process p = new ProcessBuilder("stty", "size").redirectInput(tty).redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
      if (!p.waitFor(1, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return OptionalInt.empty();
      }
      String[] parts = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip().split("\\s+");
      return p.exitValue() == 0 && parts.length == 2 ? parse(parts[1]) : OptionalInt.empty();
    } catch (IOException e) {
      return OptionalInt.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalInt.empty();
    }
  }
}
