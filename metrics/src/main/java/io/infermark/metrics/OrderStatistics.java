package io.infermark.metrics;

import java.util.Arrays;

/**
 * Places chosen order statistics of an array at their sorted positions without sorting the rest
 * (multi-quickselect): after {@link #select(double[], int[])}, {@code a[k]} holds the value a full
 * ascending sort would put there, for every requested rank k. Expected time is linear with a small
 * factor for a handful of ranks, against {@code n log n} for a sort, which decides whether a run of
 * 10^8 inter-token gaps is summarised in seconds or in a minute.
 *
 * <p>Values must not be NaN; -0.0 and 0.0 are treated as equal.
 */
final class OrderStatistics {

  /** Ranges this short are insertion-sorted: cheaper than partitioning them further. */
  private static final int SMALL = 24;

  private OrderStatistics() {}

  /**
   * Moves the order statistic of every rank in {@code ranks} to that index of {@code a}.
   *
   * @param a the values, reordered in place
   * @param ranks zero-based ranks, each in {@code [0, a.length)}; any order, duplicates allowed
   */
  static void select(double[] a, int[] ranks) {
    if (a.length < 2 || ranks.length == 0) {
      return;
    }
    int[] k = ranks.clone();
    Arrays.sort(k);
    if (k[0] < 0 || k[k.length - 1] >= a.length) {
      throw new IllegalArgumentException("ranks must be in [0, " + a.length + "), got " + Arrays.toString(ranks));
    }
    // Introselect: quickselect whose depth is bounded; past the bound a range is sorted outright,
    // so adversarial inputs cost n log n rather than n^2.
    int depthLimit = 2 * (32 - Integer.numberOfLeadingZeros(a.length));
    select(a, 0, a.length - 1, k, 0, k.length - 1, depthLimit);
  }

  private static void select(double[] a, int lo, int hi, int[] k, int kLo, int kHi, int depth) {
    while (true) {
      while (kLo <= kHi && k[kLo] < lo) {
        kLo++;
      }
      while (kLo <= kHi && k[kHi] > hi) {
        kHi--;
      }
      if (kLo > kHi || lo >= hi) {
        return;
      }
      if (hi - lo < SMALL) {
        insertionSort(a, lo, hi);
        return;
      }
      if (depth-- == 0) {
        Arrays.sort(a, lo, hi + 1);
        return;
      }
      // Hoare partition around the median of three, ordered in place so that a[lo] <= pivot <= a[hi]
      // serve as sentinels. Keys equal to the pivot stop both scans and are swapped, so runs of equal
      // latencies (integer nanoseconds repeat a lot) split evenly instead of degrading the partition;
      // it swaps far less than a three-way partition, which matters on 10^8 values.
      int mid = lo + ((hi - lo) >>> 1);
      if (a[mid] < a[lo]) {
        swap(a, lo, mid);
      }
      if (a[hi] < a[lo]) {
        swap(a, lo, hi);
      }
      if (a[hi] < a[mid]) {
        swap(a, mid, hi);
      }
      double pivot = a[mid];
      int i = lo;
      int j = hi;
      while (true) {
        do {
          i++;
        } while (a[i] < pivot);
        do {
          j--;
        } while (a[j] > pivot);
        if (i >= j) {
          break;
        }
        swap(a, i, j);
      }
      // Now a[lo..j] <= pivot <= a[j+1..hi], with lo <= j < hi. Recurse into the smaller side, loop on the other.
      int split = kLo;
      while (split <= kHi && k[split] <= j) {
        split++;
      }
      boolean left = split > kLo;
      boolean right = split <= kHi;
      if (left && right) {
        if (j - lo < hi - j) {
          select(a, lo, j, k, kLo, split - 1, depth);
          lo = j + 1;
          kLo = split;
        } else {
          select(a, j + 1, hi, k, split, kHi, depth);
          hi = j;
          kHi = split - 1;
        }
      } else if (left) {
        hi = j;
        kHi = split - 1;
      } else {
        lo = j + 1;
        kLo = split;
      }
    }
  }

  private static void swap(double[] a, int i, int j) {
    double t = a[i];
    a[i] = a[j];
    a[j] = t;
  }

  private static void insertionSort(double[] a, int lo, int hi) {
    for (int i = lo + 1; i <= hi; i++) {
      double v = a[i];
      int j = i - 1;
      while (j >= lo && a[j] > v) {
        a[j + 1] = a[j];
        j--;
      }
      a[j + 1] = v;
    }
  }
}
