package io.infermark.cli;

import io.infermark.attribution.knee.SweepKnees;
import io.infermark.core.sweep.SweepPoint;
import io.infermark.metrics.report.LoadCurvePoint;
import io.infermark.metrics.report.SweepReport;
import io.infermark.metrics.slo.LatencySlo;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** {@code sweep}'s HTML page: the latency–load curve with Kneedle's knee and the slope rule's knee marked. */
final class SweepPage {

  private SweepPage() {}

  /** Writes the page and returns its path. */
  static Path write(List<? extends SweepPoint<? extends Number>> points, SweepKnees knees, LatencySlo curve,
      boolean concurrency, Path file) {
    List<LoadCurvePoint> levels = LoadCurvePoint.of(points);
    SweepReport.Builder b = SweepReport.builder(levels)
        .title("infermark sweep: P" + SweepCommand.trim(curve.p() * 100) + " " + curve.metric() + " knee")
        .loadUnit(concurrency ? "concurrent streams" : "request rate (req/s)");
    knees.kneedle().knee().ifPresentOrElse(x -> b.knee("Kneedle knee at " + knees.kneedleLabel().orElse(fmt(x)), x),
        () -> b.note("Kneedle: no knee in this curve"));
    if (knees.slopeLabel().isEmpty()) {
      b.note("Slope rule: the curve never grew steeper than the threshold");
    }
    knees.slopeLabel().ifPresent(label -> levels.stream().filter(l -> l.label().equals(label)).findFirst()
        .ifPresent(l -> b.knee("slope above the threshold reached at " + label, l.offeredLoad())));
    return ReportPages.write(file, b.build().html());
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.4g", v);
  }
}
