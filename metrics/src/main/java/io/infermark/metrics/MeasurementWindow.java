package io.infermark.metrics;

import java.util.Locale;
import java.util.OptionalDouble;

/**
 * The span of time a run's throughput is measured over, in nanoseconds from the run's origin: from
 * the earliest <em>intended</em> send time of a measured request that was sent, to the latest end
 * (send + {@code endOffsetNanos}) of a measured request that was sent, failed ones included.
 *
 * <p>Why these ends: starting at the intended rather than the actual send means a client that fell
 * behind its schedule cannot shorten the window and flatter the throughput; ending at the last end
 * of any outcome means time spent on requests that eventually failed still counts as time the
 * service was busy. Warmup requests and requests never sent are outside the window.
 *
 * @param startNanos earliest intended send of a measured, sent request
 * @param endNanos latest end of a measured, sent request
 */
public record MeasurementWindow(long startNanos, long endNanos) {

  /** Validates. */
  public MeasurementWindow {
    if (endNanos < startNanos) {
      throw new IllegalArgumentException("window end " + endNanos + " ns is before its start " + startNanos + " ns");
    }
  }

  /** The window's length in nanoseconds. */
  public long durationNanos() {
    return endNanos - startNanos;
  }

  /** The window's length in seconds. */
  public double durationSeconds() {
    return durationNanos() / 1e9;
  }

  /** {@code count} per second of the window; empty when the window has no length. */
  public OptionalDouble perSecond(long count) {
    return durationNanos() <= 0 ? OptionalDouble.empty() : OptionalDouble.of(count / durationSeconds());
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "MeasurementWindow[%.3f s, from %.3f ms to %.3f ms]", durationSeconds(),
        startNanos / 1e6, endNanos / 1e6);
  }
}
