package io.infermark.metrics.timeseries;

import io.infermark.metrics.Distribution;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The empirical cumulative distribution of a latency sample, ready to plot: points
 * {@code (x, F(x))} where {@code F(x)} is the fraction of values ≤ x. With at most
 * {@code maxPoints} distinct values every step is kept; larger samples are thinned to the values at
 * evenly spaced ranks (always keeping the smallest and largest), which keeps the curve exact at the
 * points shown.
 *
 * @param points ascending in value and fraction, the last one at fraction 1; empty for an empty sample
 */
public record LatencyCdf(List<Point> points) {

  /** The default most points a CDF keeps. */
  public static final int DEFAULT_MAX_POINTS = 500;

  /**
   * One step of the curve.
   *
   * @param millis the value
   * @param fraction the fraction of values at or below it, in (0, 1]
   */
  public record Point(double millis, double fraction) {
  }

  /** Validates and copies. */
  public LatencyCdf {
    points = List.copyOf(points);
  }

  /** The CDF of a distribution, with at most {@value #DEFAULT_MAX_POINTS} points. */
  public static LatencyCdf of(Distribution d) {
    return of(d, DEFAULT_MAX_POINTS);
  }

  /**
   * The CDF of a distribution with at most {@code maxPoints} points.
   *
   * @throws IllegalArgumentException if maxPoints &lt; 2
   */
  public static LatencyCdf of(Distribution d, int maxPoints) {
    Objects.requireNonNull(d, "d");
    if (maxPoints < 2) {
      throw new IllegalArgumentException("maxPoints must be >= 2, was " + maxPoints);
    }
    double[] sorted = d.sortedValuesMillis();
    int n = sorted.length;
    List<Point> points = new ArrayList<>();
    if (n == 0) {
      return new LatencyCdf(points);
    }
    // The last index of each run of equal values is where F steps up to (i + 1) / n.
    int[] steps = new int[n];
    int m = 0;
    for (int i = 0; i < n; i++) {
      if (i + 1 == n || sorted[i + 1] != sorted[i]) {
        steps[m++] = i;
      }
    }
    if (m <= maxPoints) {
      for (int k = 0; k < m; k++) {
        points.add(new Point(sorted[steps[k]], (steps[k] + 1) / (double) n));
      }
    } else {
      int previous = -1;
      for (int k = 0; k < maxPoints; k++) {
        int step = steps[(int) Math.round((double) k * (m - 1) / (maxPoints - 1))];
        if (step != previous) {
          points.add(new Point(sorted[step], (step + 1) / (double) n));
          previous = step;
        }
      }
    }
    return new LatencyCdf(points);
  }

  @Override
  public String toString() {
    return points.isEmpty() ? "LatencyCdf[empty]" : String.format(Locale.ROOT,
        "LatencyCdf[%d points from %.3f ms to %.3f ms]", points.size(), points.get(0).millis(),
        points.get(points.size() - 1).millis());
  }
}
