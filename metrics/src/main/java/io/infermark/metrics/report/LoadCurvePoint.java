package io.infermark.metrics.report;

import io.infermark.core.RunResult;
import io.infermark.core.sweep.Sweep;
import io.infermark.core.sweep.SweepPoint;
import io.infermark.metrics.RunSummary;
import java.util.ArrayList;
import java.util.List;
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
public record LoadCurvePoint(String label, double offeredLoad, RunSummary summary) {

  /** Validates. */
  public LoadCurvePoint {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(summary, "summary");
    if (!Double.isFinite(offeredLoad) || offeredLoad < 0) {
      throw new IllegalArgumentException("offeredLoad must be finite and >= 0, was " + offeredLoad);
    }
  }

  /**
   * The curve of a core {@link Sweep} over rates or concurrencies: each level's number is the
   * offered load, its summary is {@link RunSummary#of(RunResult)}, and the label says which it was
   * (a rate when the run was open loop, a concurrency when closed).
   *
   * @throws IllegalArgumentException if a level is negative or not finite
   */
  public static List<LoadCurvePoint> of(List<? extends SweepPoint<? extends Number>> points) {
    List<LoadCurvePoint> curve = new ArrayList<>(points.size());
    for (SweepPoint<? extends Number> p : points) {
      double load = p.level().doubleValue();
      String label = p.result().load().isClosedLoop()
          ? "concurrency " + p.level()
          : String.format(Locale.ROOT, "%.4g req/s", load);
      curve.add(new LoadCurvePoint(label, load, RunSummary.of(p.result())));
    }
    return List.copyOf(curve);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "LoadCurvePoint[%s at %.3f: %s]", label, offeredLoad, summary);
  }
}
