package io.infermark.attribution.change;

import io.infermark.core.stats.QuantileMethod;

/**
 * The {@code p}-quantile, by a {@link QuantileMethod} ({@link QuantileMethod#LINEAR}, numpy's default,
 * unless asked otherwise), of a sample that is re-evaluated many times after small changes, without
 * sorting it.
 *
 * <p>Every method reads the order statistics at ranks {@code lo} and {@code lo + 1} and interpolates with
 * weight {@code frac} ({@link #position}): the linear quantile at {@code p(n−1)}, the nearest rank at
 * {@code ⌈pn⌉ − 1} with weight 0. Both ranks are among the {@code n − lo} largest values, a small set for a
 * tail percentile (about 1 % of the sample for P99). Each evaluation copies only the values at or above a
 * threshold into a buffer while it passes over the sample (the additive game fuses that with the update of
 * every value by one component's delta), then selects the two ranks in the buffer. If fewer than
 * {@code n − lo} values passed, the threshold was too high and the evaluation falls back to a selection
 * over the whole sample. After each evaluation the threshold is reset to the value {@code margin} ranks
 * below {@code lo}, so the next, slightly different sample usually passes about {@code n − lo + margin}
 * values.
 *
 * <p>The result is exact, identical to sorting the sample and applying the method; only the work differs.
 * Not thread-safe: one selector per game.
 */
final class TailSelector {

  private final int n;
  private final int lo;
  private final double frac;
  private final int needed;
  private final int margin;
  private final double[] buffer;
  private double threshold = Double.NEGATIVE_INFINITY;
  private long fullSelections;

  /** The {@code p}-quantile by {@code method} of samples of {@code n} values. */
  TailSelector(int n, double p, QuantileMethod method) {
    this(n, lowerRank(position(n, p, method)), weight(position(n, p, method)));
  }

  /**
   * The value {@code sorted[lo] + frac·(sorted[lo+1] − sorted[lo])} of samples of {@code n} values (for a
   * sample from which values known to lie outside the two ranks were removed).
   */
  TailSelector(int n, int lo, double frac) {
    if (n < 1 || lo < 0 || lo >= n || (frac != 0 && lo + 1 >= n)) {
      throw new IllegalArgumentException("no ranks " + lo + (frac != 0 ? " and " + (lo + 1) : "") + " among " + n
          + " values");
    }
    this.n = n;
    this.lo = lo;
    this.frac = frac;
    this.needed = n - lo;
    this.margin = Math.max(64, n / 100);
    this.buffer = new double[n + 1];
  }

  /**
   * Where {@code method} reads the {@code p}-quantile of {@code n} sorted values, as a fractional rank
   * {@code h}: the value is {@code sorted[⌊h⌋] + (h − ⌊h⌋)·(sorted[⌊h⌋+1] − sorted[⌊h⌋])}. Found by applying
   * the method to the ranks {@code 0 … n−1} themselves, so it agrees with the method by construction
   * (for the linear one {@code h = p(n−1)} exactly, for the nearest rank {@code ⌈pn⌉ − 1}).
   */
  static double position(int n, double p, QuantileMethod method) {
    double[] ranks = new double[n];
    for (int i = 0; i < n; i++) {
      ranks[i] = i;
    }
    return method.quantile(ranks, p);
  }

  /** {@code ⌊h⌋}: the lower rank a quantile at fractional rank {@code h} reads. */
  static int lowerRank(double h) {
    return (int) Math.floor(h);
  }

  /** {@code h − ⌊h⌋}: the interpolation weight of the upper rank. */
  static double weight(double h) {
    return h - Math.floor(h);
  }

  /** How many evaluations had to select over the whole sample (the threshold was too high). */
  long fullSelections() {
    return fullSelections;
  }

  /** The quantile of {@code y}, which is left unchanged. */
  double quantile(double[] y) {
    double t = threshold;
    double[] buf = buffer;
    int c = 0;
    for (int r = 0; r < n; r++) {
      double v = y[r];
      buf[c] = v;
      c += v >= t ? 1 : 0;
    }
    return finish(y, c);
  }

  /** Adds {@code delta} to every {@code y[r]} (subtracts it when {@code add} is false), then returns the quantile. */
  double updateAndQuantile(double[] y, double[] delta, boolean add) {
    double t = threshold;
    double[] buf = buffer;
    int c = 0;
    if (add) {
      for (int r = 0; r < n; r++) {
        double v = y[r] + delta[r];
        y[r] = v;
        buf[c] = v;
        c += v >= t ? 1 : 0;
      }
    } else {
      for (int r = 0; r < n; r++) {
        double v = y[r] - delta[r];
        y[r] = v;
        buf[c] = v;
        c += v >= t ? 1 : 0;
      }
    }
    return finish(y, c);
  }

  private double finish(double[] y, int passed) {
    int c = passed;
    if (c < needed) {
      fullSelections++;
      System.arraycopy(y, 0, buffer, 0, n);
      c = n;
    }
    // The buffer holds the c largest values; in ascending order rank lo of the sample is at c − needed.
    int idx = c - needed;
    select(buffer, 0, c - 1, idx);
    double low = buffer[idx];
    double result = low;
    if (frac != 0) {
      double high = buffer[idx + 1];
      for (int i = idx + 2; i < c; i++) {
        high = Math.min(high, buffer[i]);
      }
      result = low + frac * (high - low);
    }
    if (idx >= margin) {
      select(buffer, 0, idx - 1, idx - margin);
      threshold = buffer[idx - margin];
    } else if (idx < margin / 4 && c < n) {
      // Too little slack below rank lo: the next sample would likely fall back. Re-anchor on the full one.
      System.arraycopy(y, 0, buffer, 0, n);
      int rank = Math.max(0, lo - margin);
      select(buffer, 0, n - 1, rank);
      threshold = buffer[rank];
    }
    return result;
  }

  /** Quickselect: afterwards {@code a[k]} holds the value of rank {@code k} within {@code a[from..to]}. */
  static void select(double[] a, int from, int to, int k) {
    int left = from;
    int right = to;
    while (right > left) {
      if (right - left < 16) {
        insertionSort(a, left, right);
        return;
      }
      int mid = (left + right) >>> 1;
      // Median of three as the pivot, placed at right − 1; a[left] ≤ pivot ≤ a[right] act as sentinels.
      if (a[mid] < a[left]) {
        swap(a, mid, left);
      }
      if (a[right] < a[left]) {
        swap(a, right, left);
      }
      if (a[right] < a[mid]) {
        swap(a, right, mid);
      }
      swap(a, mid, right - 1);
      double pivot = a[right - 1];
      int i = left;
      int j = right - 1;
      while (true) {
        while (a[++i] < pivot) {
          // scan
        }
        while (pivot < a[--j]) {
          // scan
        }
        if (i >= j) {
          break;
        }
        swap(a, i, j);
      }
      swap(a, i, right - 1);
      if (k == i) {
        return;
      }
      if (k < i) {
        right = i - 1;
      } else {
        left = i + 1;
      }
    }
  }

  private static void insertionSort(double[] a, int from, int to) {
    for (int i = from + 1; i <= to; i++) {
      double v = a[i];
      int j = i - 1;
      while (j >= from && a[j] > v) {
        a[j + 1] = a[j];
        j--;
      }
      a[j + 1] = v;
    }
  }

  private static void swap(double[] a, int i, int j) {
    double t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}
