package io.infermark.attribution.drift;

import io.infermark.metrics.PercentileInterval;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * One tail percentile of a baseline and a current sample, each with its distribution-free
 * order-statistic confidence interval ({@link io.infermark.metrics.Distribution#percentileInterval}),
 * and whether the tail moved: the intervals do not overlap.
 *
 * <p>Non-overlap of two intervals at confidence c is a conservative test (at 95 % each it rejects
 * equal percentiles far less often than 5 % of the time); a shift it reports is real beyond
 * reasonable doubt, and a small shift may go unflagged. When either sample is too small to bound the
 * percentile at that confidence the shift is {@link Shift#UNKNOWN}.
 *
 * @param p the percentile, in (0, 1)
 * @param baseline the baseline's percentile and interval, ms
 * @param current the current sample's percentile and interval, ms
 * @param shift how the current interval lies relative to the baseline's
 */
public record TailComparison(double p, PercentileInterval baseline, PercentileInterval current, Shift shift) {

  /** Where the current interval lies relative to the baseline's. */
  public enum Shift {
    /** Entirely above: the tail got slower. */
    SLOWER,
    /** Entirely below: the tail got faster. */
    FASTER,
    /** The intervals overlap: no shift shown. */
    NONE,
    /** At least one interval could not be formed from so few values. */
    UNKNOWN
  }

  static TailComparison of(double p, PercentileInterval baseline, PercentileInterval current) {
    Shift shift;
    if (!baseline.isFormed() || !current.isFormed()) {
      shift = Shift.UNKNOWN;
    } else if (current.lowerMillis().getAsDouble() > baseline.upperMillis().getAsDouble()) {
      shift = Shift.SLOWER;
    } else if (current.upperMillis().getAsDouble() < baseline.lowerMillis().getAsDouble()) {
      shift = Shift.FASTER;
    } else {
      shift = Shift.NONE;
    }
    return new TailComparison(p, baseline, current, shift);
  }

  /** True when the intervals do not overlap (the shift is {@link Shift#SLOWER} or {@link Shift#FASTER}). */
  public boolean shifted() {
    return shift == Shift.SLOWER || shift == Shift.FASTER;
  }

  /** Current percentile ÷ baseline percentile; empty when the baseline's is 0 or a sample is empty. */
  public OptionalDouble ratio() {
    if (baseline.estimateMillis().isEmpty() || current.estimateMillis().isEmpty()
        || baseline.estimateMillis().getAsDouble() == 0) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(current.estimateMillis().getAsDouble() / baseline.estimateMillis().getAsDouble());
  }

  /** The percentile's label: {@code P99}, {@code P99.9}. */
  public String label() {
    double pct = p * 100;
    return "P" + (Math.abs(pct - Math.rint(pct)) < 1e-9 ? String.valueOf((long) Math.rint(pct))
        : String.valueOf(Math.round(pct * 1e6) / 1e6));
  }

  @Override
  public String toString() {
    String r = ratio().isPresent() ? String.format(Locale.ROOT, "x%.2f", ratio().getAsDouble()) : "x?";
    return label() + " " + r + " " + shift.name().toLowerCase(Locale.ROOT);
  }
}
