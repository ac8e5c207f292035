package io.infermark.metrics.timeseries;

import java.util.Locale;
import java.util.OptionalDouble;

/**
 * Percentiles of one latency metric over the values that fell into one interval (linear,
 * numpy-compatible), in ms; all empty when the interval had none.
 *
 * @param count values in the interval
 * @param p50 the median
 * @param p90 the 90th percentile
 * @param p99 the 99th percentile (rests on few values in a short interval)
 * @param max the largest value
 */
public record IntervalLatency(int count, OptionalDouble p50, OptionalDouble p90, OptionalDouble p99,
    OptionalDouble max) {

  static final IntervalLatency NONE = new IntervalLatency(0, OptionalDouble.empty(), OptionalDouble.empty(),
      OptionalDouble.empty(), OptionalDouble.empty());

  /** Validates. */
  public IntervalLatency {
    if (count < 0 || (count == 0) != p50.isEmpty()) {
      throw new IllegalArgumentException("percentiles must be present exactly when count (" + count + ") > 0");
    }
  }

  @Override
  public String toString() {
    return count == 0 ? "IntervalLatency[none]" : String.format(Locale.ROOT,
        "IntervalLatency[n=%d, p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms]", count, p50.getAsDouble(),
        p90.getAsDouble(), p99.getAsDouble(), max.getAsDouble());
  }
}
