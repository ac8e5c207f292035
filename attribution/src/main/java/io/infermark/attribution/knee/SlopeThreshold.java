package io.infermark.attribution.knee;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The slope-threshold knee rule: the first point of a latency–load curve where
 * {@code Δlatency / Δload} exceeds a threshold. With load in requests per second and latency in
 * milliseconds the threshold is in ms per req/s, {@value #DEFAULT_MS_PER_UNIT} by default: past that
 * point, each extra request per second costs more than 120 ms of latency. For closed-loop sweeps the
 * load is the concurrency and the unit is ms per concurrent request.
 *
 * <p>Unlike Kneedle, this rule is absolute: it does not rescale the curve, so it finds no knee on a
 * curve that never gets steep and is not fooled by a small curve's relative bends. Immutable.
 */
public final class SlopeThreshold {

  /** The default threshold: 120 ms of latency per additional req/s. */
  public static final double DEFAULT_MS_PER_UNIT = 120;

  private static final SlopeThreshold DEFAULT = new SlopeThreshold(DEFAULT_MS_PER_UNIT);

  private final double threshold;

  private SlopeThreshold(double threshold) {
    this.threshold = threshold;
  }

  /** The rule with the default threshold, {@value #DEFAULT_MS_PER_UNIT} ms per req/s. */
  public static SlopeThreshold defaults() {
    return DEFAULT;
  }

  /**
   * The rule with the given threshold.
   *
   * @param msPerUnit ms of latency per unit of load (req/s or concurrency), finite and &gt; 0
   * @throws IllegalArgumentException if the threshold is not finite and &gt; 0
   */
  public static SlopeThreshold of(double msPerUnit) {
    if (!(msPerUnit > 0) || Double.isInfinite(msPerUnit)) {
      throw new IllegalArgumentException("slope threshold must be finite and > 0 ms per unit of load, was "
          + msPerUnit);
    }
    return new SlopeThreshold(msPerUnit);
  }

  /** The threshold, ms per unit of load. */
  public double msPerUnit() {
    return threshold;
  }

  /**
   * The first segment whose slope is strictly above the threshold.
   *
   * @param load strictly increasing load levels (req/s or concurrency), finite
   * @param latencyMillis the latency at each level, ms, finite
   * @return the segment, empty when every slope is at or below the threshold (or there are fewer than two points)
   * @throws IllegalArgumentException if the arrays differ in length, hold a non-finite value or load is not
   *     strictly increasing
   */
  public Optional<SlopeKnee> find(double[] load, double[] latencyMillis) {
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(latencyMillis, "latencyMillis");
    if (load.length != latencyMillis.length) {
      throw new IllegalArgumentException("load and latencyMillis must have the same length, were " + load.length
          + " and " + latencyMillis.length);
    }
    for (int i = 0; i < load.length; i++) {
      if (!Double.isFinite(load[i]) || !Double.isFinite(latencyMillis[i])) {
        throw new IllegalArgumentException("point " + i + " is (" + load[i] + ", " + latencyMillis[i]
            + "); load and latency must be finite");
      }
      if (i > 0 && !(load[i] > load[i - 1])) {
        throw new IllegalArgumentException("load must be strictly increasing, but load[" + i + "] = " + load[i]
            + " follows load[" + (i - 1) + "] = " + load[i - 1]);
      }
    }
    for (int i = 1; i < load.length; i++) {
      double slope = (latencyMillis[i] - latencyMillis[i - 1]) / (load[i] - load[i - 1]);
      if (slope > threshold) {
        return Optional.of(new SlopeKnee(i, load[i - 1], load[i], latencyMillis[i - 1], latencyMillis[i], slope,
            threshold));
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SlopeThreshold[%s ms per unit of load]", threshold);
  }
}
