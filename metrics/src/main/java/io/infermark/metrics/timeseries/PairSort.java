package io.infermark.metrics.timeseries;

/**
 * Sorts two parallel arrays by the first (long keys), carrying the second along, without boxing:
 * the sweep lines over millions of chunk arrivals need their times in order with their token weights.
 */
final class PairSort {

  private static final int SMALL = 24;

  private PairSort() {}

  static void sort(long[] keys, double[] values, int n) {
    int depth = 2 * (32 - Integer.numberOfLeadingZeros(Math.max(n, 1)));
    sort(keys, values, 0, n - 1, depth);
  }

  private static void sort(long[] k, double[] v, int lo, int hi, int depth) {
    while (hi - lo >= SMALL) {
      if (depth-- == 0) {
        heapSort(k, v, lo, hi);
        return;
      }
      long pivot = median(k[lo], k[lo + ((hi - lo) >>> 1)], k[hi]);
      int i = lo;
      int j = hi;
      while (i <= j) {
        while (k[i] < pivot) {
          i++;
        }
        while (k[j] > pivot) {
          j--;
        }
        if (i <= j) {
          swap(k, v, i++, j--);
        }
      }
      if (j - lo < hi - i) {
        sort(k, v, lo, j, depth);
        lo = i;
      } else {
        sort(k, v, i, hi, depth);
        hi = j;
      }
    }
    for (int i = lo + 1; i <= hi; i++) {
      long key = k[i];
      double value = v[i];
      int j = i - 1;
      while (j >= lo && k[j] > key) {
        k[j + 1] = k[j];
        v[j + 1] = v[j];
        j--;
      }
      k[j + 1] = key;
      v[j + 1] = value;
    }
  }

  private static void heapSort(long[] k, double[] v, int lo, int hi) {
    int n = hi - lo + 1;
    for (int i = n / 2 - 1; i >= 0; i--) {
      siftDown(k, v, lo, i, n);
    }
    for (int end = n - 1; end > 0; end--) {
      swap(k, v, lo, lo + end);
      siftDown(k, v, lo, 0, end);
    }
  }

  private static void siftDown(long[] k, double[] v, int lo, int i, int n) {
    while (true) {
      int child = 2 * i + 1;
      if (child >= n) {
        return;
      }
      if (child + 1 < n && k[lo + child + 1] > k[lo + child]) {
        child++;
      }
      if (k[lo + i] >= k[lo + child]) {
        return;
      }
      swap(k, v, lo + i, lo + child);
      i = child;
    }
  }

  private static long median(long a, long b, long c) {
    return a < b ? (b < c ? b : Math.max(a, c)) : (a < c ? a : Math.max(b, c));
  }

  private static void swap(long[] k, double[] v, int i, int j) {
    long tk = k[i];
    k[i] = k[j];
    k[j] = tk;
    double tv = v[i];
    v[i] = v[j];
    v[j] = tv;
  }
}
