package io.infermark.metrics.report;

import io.infermark.core.RunResult;
import java.util.Objects;

/**
 * A self-contained HTML page with one chart: the run's request timeline, as vLLM's {@code --plot-timeline} writes
 * it beside its result ({@code NAME.timeline.html}). One bar per sent request by send time, from its send to its
 * first token, then decoding to its end; failures in red; hover for a request's times, drag to zoom.
 */
public final class TimelineReport extends HtmlDocument {

  private TimelineReport(String html) {
    super(html, "the timeline");
  }

  /**
   * The page of a run that kept its records.
   *
   * @throws IllegalStateException if the run did not retain its records
   */
  public static TimelineReport of(RunResult run, String title) {
    return of(run, title, new double[0]);
  }

  /**
   * The page with decoding coloured by each inter-token gap: green below {@code itlThresholdsMillis[0]}, orange up
   * to {@code [1]}, red above (vLLM's {@code --timeline-itl-thresholds}, default 25 and 50 ms).
   *
   * @throws IllegalArgumentException unless two ascending thresholds are given
   */
  public static TimelineReport of(RunResult run, String title, double[] itlThresholdsMillis) {
    if (itlThresholdsMillis.length != 0 && (itlThresholdsMillis.length != 2
        || !(itlThresholdsMillis[0] <= itlThresholdsMillis[1]))) {
      throw new IllegalArgumentException("ITL thresholds are two ascending values in ms, e.g. 25 and 50");
    }
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(title, "title");
    StringBuilder b = new StringBuilder(64 * 1024);
    HtmlPage.open(b, title);
    b.append("<p class='meta'>").append(Html.escape(run.target())).append(" &middot; started ")
        .append(Html.escape(run.startedAt().toString())).append(" &middot; ").append(Html.escape(run.load().toString()))
        .append("</p>");
    HtmlReport.timelineSection(b, run, itlThresholdsMillis.clone());
    HtmlPage.close(b);
    return new TimelineReport(b.toString());
  }
}
