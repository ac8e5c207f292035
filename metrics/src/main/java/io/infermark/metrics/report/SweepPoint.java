package io.infermark.metrics.report;

import io.infermark.metrics.RunSummary;
import java.util.Locale;
import java.util.Objects;

/**
 * One level of a load sweep for the latency–load curve of {@link HtmlReport}: a label, the load
 * offered at that level, and the level's summary.
 *
 * @param label what the level was, e.g. {@code "8 req/s"} or {@code "concurrency 16"}
 * @param offeredLoad the x value: requests per second offered, or concurrency for closed loops
 * @param summary the level's summary
 */
public record SweepPoint(String label, double offeredLoad, RunSummary summary) {

  /** Validates. */
  public SweepPoint {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(summary, "summary");
    if (!Double.isFinite(offeredLoad) || offeredLoad < 0) {
      throw new IllegalArgumentException("offeredLoad must be finite and >= 0, was " + offeredLoad);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SweepPoint[%s at %.3f: %s]", label, offeredLoad, summary);
  }
}
