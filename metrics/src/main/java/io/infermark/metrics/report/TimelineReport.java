package io.infermark.metrics.report;

import io.infermark.core.RunResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A self-contained HTML page with one chart: the run's request timeline, as vLLM's {@code --plot-timeline} writes
 * it beside its result ({@code NAME.timeline.html}). One bar per sent request by send time, from its send to its
 * first token, then decoding to its end; failures in red; hover for a request's times, drag to zoom.
 */
public final class TimelineReport {

  private final String html;

  private TimelineReport(String html) {
    this.html = html;
  }

  /**
   * The page of a run that kept its records.
   *
   * @throws IllegalStateException if the run did not retain its records
   */
  public static TimelineReport of(RunResult run, String title) {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(title, "title");
    StringBuilder b = new StringBuilder(64 * 1024);
    HtmlPage.open(b, title);
    b.append("<p class='meta'>").append(Html.escape(run.target())).append(" &middot; started ")
        .append(Html.escape(run.startedAt().toString())).append(" &middot; ").append(Html.escape(run.load().toString()))
        .append("</p>");
    HtmlReport.timelineSection(b, run);
    HtmlPage.close(b);
    return new TimelineReport(b.toString());
  }

  /** The HTML document. */
  public String html() {
    return html;
  }

  /**
   * Writes the document (UTF-8), replacing the file.
   *
   * @throws UncheckedIOException if the file cannot be written
   */
  public void write(Path file) {
    try {
      Files.writeString(file, html, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the timeline to " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "TimelineReport[" + html.length() + " chars]";
  }
}
