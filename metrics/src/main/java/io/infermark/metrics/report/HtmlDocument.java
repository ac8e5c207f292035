package io.infermark.metrics.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A self-contained HTML page infermark wrote (a run's report, a sweep, a comparison, a timeline): its
 * text, and writing it to a file. Immutable.
 */
public abstract class HtmlDocument {

  private final String html;
  private final String what;

  /** A page of this text; {@code what} names it in errors ("the sweep page"). */
  HtmlDocument(String html, String what) {
    this.html = Objects.requireNonNull(html, "html");
    this.what = what;
  }

  /** The HTML document. */
  public final String html() {
    return html;
  }

  /**
   * Writes the document (UTF-8), replacing the file.
   *
   * @throws UncheckedIOException if the file cannot be written
   */
  public final void write(Path file) {
    try {
      Files.writeString(file, html, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + what + " to " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + html.length() + " chars]";
  }
}
