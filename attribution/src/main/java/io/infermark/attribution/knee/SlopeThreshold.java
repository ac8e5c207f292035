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

  /**
   * The first segment, between consecutive points in the given order, whose slope is strictly above the
   * threshold, when the x values need not increase: the curve of a sweep against achieved throughput,
   * taken in the order of the load offered. A segment where x did not rise ({@code Δx <= 0}) while
   * latency did ({@code Δy > 0}) has an infinite slope (the server delivered no more for more latency:
   * saturation) and is a knee; one where neither rose is not.
   *
   * @param x the curve's x per point, in the order the levels were offered, finite
   * @param latencyMillis the latency at each point, ms, finite
   * @return the segment, empty when none is too steep (or there are fewer than two points)
   * @throws IllegalArgumentException if the arrays differ in length or hold a non-finite value
   */
  public Optional<SlopeKnee> findAlong(double[] x, double[] latencyMillis) {
    Objects.requireNonNull(x, "x");
    Objects.requireNonNull(latencyMillis, "latencyMillis");
    if (x.length != latencyMillis.length) {
      throw new IllegalArgumentException("x and latencyMillis must have the same length, were " + x.length + " and "
          + latencyMillis.length);
    }
    for (int i = 0; i < x.length; i++) {
      if (!Double.isFinite(x[i]) || !Double.isFinite(latencyMillis[i])) {
        throw new IllegalArgumentException("point " + i + " is (" + x[i] + ", " + latencyMillis[i]
            + "); x and latency must be finite");
      }
    }
    for (int i = 1; i < x.length; i++) {
      double dx = x[i] - x[i - 1];
      double dy = latencyMillis[i] - latencyMillis[i - 1];
      double slope = dx > 0 ? dy / dx : dy > 0 ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
      if (slope > threshold) {
        return Optional.of(new SlopeKnee(i, x[i - 1], x[i], latencyMillis[i - 1], latencyMillis[i], slope,
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
