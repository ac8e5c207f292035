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
      double pivot = medianOfThree(a[lo], a[lo + ((hi - lo) >>> 1)], a[hi]);
      // Three-way partition: latencies from integer nanoseconds repeat a lot, and equal keys must
      // not degrade the partition. Afterwards a[lo..lt) < pivot, a[lt..gt] == pivot, a(gt..hi] > pivot.
      int lt = lo;
      int gt = hi;
      int i = lo;
      while (i <= gt) {
        double v = a[i];
        if (v < pivot) {
          a[i++] = a[lt];
          a[lt++] = v;
        } else if (v > pivot) {
          a[i] = a[gt];
          a[gt--] = v;
        } else {
          i++;
        }
      }
      // Ranks inside [lt, gt] are settled. Recurse into the smaller side with ranks, loop on the other.
      int leftEnd = kLo;
      while (leftEnd <= kHi && k[leftEnd] < lt) {
        leftEnd++;
      }
      int rightStart = leftEnd;
      while (rightStart <= kHi && k[rightStart] <= gt) {
        rightStart++;
      }
      boolean left = leftEnd > kLo;
      boolean right = rightStart <= kHi;
      if (left && right) {
        if (lt - lo < hi - gt) {
          select(a, lo, lt - 1, k, kLo, leftEnd - 1, depth);
          lo = gt + 1;
          kLo = rightStart;
        } else {
          select(a, gt + 1, hi, k, rightStart, kHi, depth);
          hi = lt - 1;
          kHi = leftEnd - 1;
        }
      } else if (left) {
        hi = lt - 1;
        kHi = leftEnd - 1;
      } else if (right) {
        lo = gt + 1;
        kLo = rightStart;
      } else {
        return;
      }
    }
  }

  private static double medianOfThree(double x, double y, double z) {
    return x < y ? (y < z ? y : Math.max(x, z)) : (x < z ? x : Math.max(y, z));
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
