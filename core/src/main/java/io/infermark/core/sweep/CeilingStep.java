package io.infermark.core.sweep;

import java.util.Locale;
import java.util.Objects;

/**
 * One measurement of a {@link CeilingSearch}: the level tried, whether it passed, and a short account of
 * the figures that decided it (e.g. {@code "error bound 0.42 ms, 25,310 tokens/s"}).
 *
 * @param level the level measured (a rate, a number of streams: the caller's unit)
 * @param passed whether the level stayed within the caller's bound
 * @param detail what was measured, one line; may be empty, never null
 */
public record CeilingStep(double level, boolean passed, String detail) {

  /** Validates. */
  public CeilingStep {
    if (!Double.isFinite(level) || level <= 0) {
      throw new IllegalArgumentException("level must be a finite number > 0, was " + level);
    }
    Objects.requireNonNull(detail, "detail");
  }

  /** A level that stayed within the bound. */
  public static CeilingStep pass(double level, String detail) {
    return new CeilingStep(level, true, detail);
  }

  /** A level that passed the bound. */
  public static CeilingStep fail(double level, String detail) {
    return new CeilingStep(level, false, detail);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%.6g %s%s", level, passed ? "pass" : "fail",
        detail.isEmpty() ? "" : " (" + detail + ")");
  }
}
