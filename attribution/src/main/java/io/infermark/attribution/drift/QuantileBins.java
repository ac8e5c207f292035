package io.infermark.attribution.drift;

import io.infermark.core.stats.QuantileMethod;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * Bins cut at a baseline sample's quantiles, for comparing another sample's distribution with it.
 *
 * <p>Asked for {@code n} bins, the inner edges are the baseline's {@code k/n} quantiles for
 * k = 1..n−1, computed by linear interpolation (numpy's default). Equal edges, which ties in the
 * baseline produce, are merged, so there may be fewer bins. Bins are closed on the right: bin 0 is
 * {@code v ≤ e1}, bin i is {@code e_i < v ≤ e_(i+1)}, the last is {@code v > e_last}; the end bins are
 * open, so values outside the baseline's range fall into them. Immutable.
 */
public final class QuantileBins {

  private final double[] edges;

  private QuantileBins(double[] edges) {
    this.edges = edges;
  }

  /**
   * The bins of a baseline sample.
   *
   * @param baseline at least one finite value
   * @param bins how many bins to aim for, at least 2
   * @throws IllegalArgumentException if the baseline is empty or holds a non-finite value, or bins is below 2
   */
  public static QuantileBins ofBaseline(double[] baseline, int bins) {
    Objects.requireNonNull(baseline, "baseline");
    if (bins < 2) {
      throw new IllegalArgumentException("bins must be >= 2, was " + bins);
    }
    if (baseline.length == 0) {
      throw new IllegalArgumentException("baseline must hold at least one value to cut bins from, was empty");
    }
    double[] sorted = baseline.clone();
    for (int i = 0; i < sorted.length; i++) {
      if (!Double.isFinite(sorted[i])) {
        throw new IllegalArgumentException("baseline value " + i + " is " + sorted[i] + "; values must be finite");
      }
      sorted[i] += 0.0;
    }
    Arrays.sort(sorted);
    double[] edges = new double[bins - 1];
    int e = 0;
    for (int k = 1; k < bins; k++) {
      double q = QuantileMethod.LINEAR.quantile(sorted, (double) k / bins);
      if (e == 0 || q > edges[e - 1]) {
        edges[e++] = q;
      }
    }
    return new QuantileBins(Arrays.copyOf(edges, e));
  }

  /** The inner edges, ascending and distinct; a copy. */
  public double[] edges() {
    return edges.clone();
  }

  /** The number of bins: one more than the edges. */
  public int binCount() {
    return edges.length + 1;
  }

  /** The bin of {@code v}: the number of edges strictly below it. */
  public int binOf(double v) {
    int lo = 0;
    int hi = edges.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (edges[mid] < v) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * How many of {@code values} fall in each bin.
   *
   * @throws IllegalArgumentException if a value is not finite
   */
  public long[] counts(double[] values) {
    long[] c = new long[binCount()];
    for (int i = 0; i < values.length; i++) {
      if (!Double.isFinite(values[i])) {
        throw new IllegalArgumentException("value " + i + " is " + values[i] + "; values must be finite");
      }
      c[binOf(values[i])]++;
    }
    return c;
  }

  /** One line: {@code QuantileBins[5 bins, edges 2.800 4.600 6.400 8.200]}, edges in the baseline's unit. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("QuantileBins[").append(binCount()).append(" bins, edges");
    for (double e : edges) {
      s.append(String.format(Locale.ROOT, " %.3f", e));
    }
    return s.append(']').toString();
  }
}
