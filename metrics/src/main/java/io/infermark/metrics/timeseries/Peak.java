package io.infermark.metrics.timeseries;

import java.util.Locale;

/**
 * The highest value a quantity reached and when.
 *
 * @param value the peak
 * @param atNanos when, in nanoseconds from the run's origin (for a windowed rate: the window's end)
 */
public record Peak(double value, long atNanos) {

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "Peak[%.3f at %.3f s]", value, atNanos / 1e9);
  }
}
