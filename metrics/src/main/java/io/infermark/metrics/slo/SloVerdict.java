package io.infermark.metrics.slo;

import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * The verdict on one {@link Slo}: what was measured, the threshold, whether it passed, and the
 * margin: how far the measured value is on the good side of the threshold (positive when passing,
 * negative when failing; in the objective's unit). An objective with nothing to measure (a latency
 * percentile with no successful request, a throughput without a window) has
 * {@link Outcome#NO_DATA}, which is not a pass.
 *
 * @param slo the objective
 * @param outcome pass, fail or no data
 * @param measured the measured value, empty with {@link Outcome#NO_DATA}
 * @param threshold the objective's threshold in the same unit
 * @param unit {@code ms}, {@code fraction} or {@code tokens/s/GPU}
 * @param margin threshold minus measured for upper bounds, measured minus threshold for lower bounds
 * @param note extra context, e.g. that a percentile rests on too few samples; empty when none
 */
public record SloVerdict(Slo slo, Outcome outcome, OptionalDouble measured, double threshold, String unit,
    OptionalDouble margin, String note) {

  /** How an objective came out. */
  public enum Outcome {
    /** The measured value is on the good side of the threshold (or on it). */
    PASS,
    /** The measured value is on the bad side. */
    FAIL,
    /** Nothing could be measured. */
    NO_DATA
  }

  /** Validates. */
  public SloVerdict {
    Objects.requireNonNull(slo, "slo");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(note, "note");
    if ((outcome == Outcome.NO_DATA) != measured.isEmpty() || measured.isPresent() != margin.isPresent()) {
      throw new IllegalArgumentException("measured and margin must be present exactly when there is data");
    }
  }

  static SloVerdict upperBound(Slo slo, OptionalDouble measured, double threshold, String unit, String note) {
    return of(slo, measured, threshold, unit, note, true);
  }

  static SloVerdict lowerBound(Slo slo, OptionalDouble measured, double threshold, String unit, String note) {
    return of(slo, measured, threshold, unit, note, false);
  }

  private static SloVerdict of(Slo slo, OptionalDouble measured, double threshold, String unit, String note,
      boolean upper) {
    if (measured.isEmpty()) {
      return new SloVerdict(slo, Outcome.NO_DATA, measured, threshold, unit, OptionalDouble.empty(), note);
    }
    double m = measured.getAsDouble();
    double margin = upper ? threshold - m : m - threshold;
    return new SloVerdict(slo, margin >= 0 ? Outcome.PASS : Outcome.FAIL, measured, threshold, unit,
        OptionalDouble.of(margin), note);
  }

  /** True when the objective passed. */
  public boolean passed() {
    return outcome == Outcome.PASS;
  }

  @Override
  public String toString() {
    if (measured.isEmpty()) {
      return "SloVerdict[" + slo.name() + ": NO_DATA" + (note.isEmpty() ? "" : ", " + note) + "]";
    }
    return String.format(Locale.ROOT, "SloVerdict[%s: %s, measured %.4g %s, margin %+.4g%s]", slo.name(), outcome,
        measured.getAsDouble(), unit, margin.getAsDouble(), note.isEmpty() ? "" : ", " + note);
  }
}
