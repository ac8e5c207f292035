package io.infermark.attribution.knee;

import java.util.Locale;

/**
 * The first segment of a latency–load curve steeper than a threshold, found by {@link SlopeThreshold}.
 * The knee is the segment's end: the first load level whose latency rose faster than allowed from the
 * level before it; {@code fromLoad} is then the last level reached at an acceptable slope.
 *
 * @param index the segment end's index in the (load-sorted) input
 * @param fromLoad the segment's start load (req/s, or concurrency)
 * @param toLoad the segment's end load: the knee
 * @param fromLatencyMillis latency at the start, ms
 * @param toLatencyMillis latency at the end, ms
 * @param slope {@code (toLatency − fromLatency) / (toLoad − fromLoad)}, ms per unit of load (ms per req/s)
 * @param threshold the slope it exceeded, same unit
 */
public record SlopeKnee(int index, double fromLoad, double toLoad, double fromLatencyMillis, double toLatencyMillis,
    double slope, double threshold) {

  /** One line: {@code SlopeKnee[6 -> 8: 31.000 -> 412.000 ms, 190.500 ms per unit > 120.000]}. */
  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SlopeKnee[%s -> %s: %.3f -> %.3f ms, %.3f ms per unit > %.3f]",
        fromLoad, toLoad, fromLatencyMillis, toLatencyMillis, slope, threshold);
  }
}
