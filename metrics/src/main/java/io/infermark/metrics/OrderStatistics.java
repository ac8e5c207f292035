package io.infermark.metrics;

import java.util.Arrays;

/**
 * Places chosen order statistics of an array at their sorted positions without sorting the rest:
 * after {@link #select(double[], int[])}, {@code a[k]} holds the value a full ascending sort would put
 * there, for every requested rank k, and the array is a permutation of what it was.
 *
 * <p>Two algorithms, both exact. Short arrays use a multi-quickselect (expected linear time with a
 * small factor for a handful of ranks). Long ones ({@value #HISTOGRAM_THRESHOLD} values and more)
 * use a histogram selection that reads the array in a few sequential passes and moves only the
 * values it places: one pass finds the range of an order-preserving integer key of the doubles, one
 * counts the values per key bucket (2^{@value #BUCKET_BITS} buckets), the cumulative counts name the
 * bucket and in-bucket rank of every requested rank, and one pass records where the values of those
 * few buckets are; they alone are sorted. For 10^8 pooled inter-token gaps this is several times
 * faster than quickselect, whose partitioning swaps half the array on each of its first levels.
 * When the wanted buckets hold too large a share of the values (few distinct values) it falls back
 * to quickselect.
 *
 * <p>Values must not be NaN; -0.0 and 0.0 are treated as equal.
 */
final class OrderStatistics {

  /** Arrays at least this long use the histogram selection. */
  static final int HISTOGRAM_THRESHOLD = 1 << 17;
  /** log2 of the number of histogram buckets: 2^16 counts fit in the L2 cache. */
  static final int BUCKET_BITS = 16;
  /** The histogram selection gives up when its buckets hold more than this share (1/8) of the values. */
  private static final int MAX_GATHERED_SHIFT = 3;
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
    int[] k = distinctSorted(a, ranks);
    if (a.length < HISTOGRAM_THRESHOLD || !histogramSelect(a, k)) {
      quickselect(a, k);
    }
  }

  /**
   * {@link #select(double[], int[])} for a caller that already knows the extremes, which saves the
   * histogram selection a pass over the values.
   *
   * @param min the smallest value of {@code a}
   * @param max the largest value of {@code a}
   */
  static void select(double[] a, int[] ranks, double min, double max) {
    if (a.length < 2 || ranks.length == 0) {
      return;
    }
    int[] k = distinctSorted(a, ranks);
    if (a.length < HISTOGRAM_THRESHOLD || !histogramSelect(a, k, key(min), key(max))) {
      quickselect(a, k);
    }
  }

  /** The ranks ascending without duplicates, after checking that each indexes {@code a}. */
  static int[] distinctSorted(double[] a, int[] ranks) {
    int[] k = ranks.clone();
    Arrays.sort(k);
    if (k[0] < 0 || k[k.length - 1] >= a.length) {
      throw new IllegalArgumentException("ranks must be in [0, " + a.length + "), got " + Arrays.toString(ranks));
    }
    int m = 1;
    for (int i = 1; i < k.length; i++) {
      if (k[i] != k[m - 1]) {
        k[m++] = k[i];
      }
    }
    return Arrays.copyOf(k, m);
  }

  /**
   * A key that orders like the double, as a signed long: the raw bits for non-negative values, the
   * bits with everything but the sign flipped for negative ones (whose raw bits order backwards).
   * -0.0 is taken as 0.0.
   */
  static long key(double v) {
    long bits = Double.doubleToRawLongBits(v + 0.0);
    return bits ^ ((bits >> 63) & Long.MAX_VALUE);
  }

  /**
   * The histogram selection (see the class comment) for ascending distinct ranks {@code k}.
   *
   * @return false, with {@code a} untouched, when the buckets of the ranks hold too many values
   */
  static boolean histogramSelect(double[] a, int[] k) {
    long minKey = Long.MAX_VALUE;
    long maxKey = Long.MIN_VALUE;
    for (double v : a) {
      long key = key(v);
      minKey = Math.min(minKey, key);
      maxKey = Math.max(maxKey, key);
    }
    return histogramSelect(a, k, minKey, maxKey);
  }

  /** {@link #histogramSelect(double[], int[])} given the smallest and largest {@link #key} of the values. */
  static boolean histogramSelect(double[] a, int[] k, long minKey, long maxKey) {
    int n = a.length;
    if (minKey == maxKey) {
      return true; // all values equal: every one is already where a sort would leave an equal one
    }
    // The true difference is below 2^64, so the wrapped subtraction read as unsigned is exact.
    long range = maxKey - minKey;
    int shift = Math.max(0, 64 - Long.numberOfLeadingZeros(range) - BUCKET_BITS);
    int[] counts = new int[(int) (range >>> shift) + 1];
    for (double v : a) {
      counts[(int) ((key(v) - minKey) >>> shift)]++;
    }

    // The bucket of every rank and its rank within the bucket; the wanted buckets become segments.
    int m = k.length;
    int[] segmentOfRank = new int[m];
    int[] rankInBucket = new int[m];
    int[] segmentBucket = new int[m];
    int segments = 0;
    long gathered = 0;
    int bucket = 0;
    int before = 0;
    for (int i = 0; i < m; i++) {
      while (before + counts[bucket] <= k[i]) {
        before += counts[bucket++];
      }
      if (segments == 0 || segmentBucket[segments - 1] != bucket) {
        segmentBucket[segments++] = bucket;
        gathered += counts[bucket];
      }
      segmentOfRank[i] = segments - 1;
      rankInBucket[i] = k[i] - before;
    }
    if (gathered > Math.max(n >>> MAX_GATHERED_SHIFT, 1 << BUCKET_BITS)) {
      return false;
    }

    // Where the values of each wanted bucket are, in index order, segment after segment.
    int[] segmentStart = new int[segments + 1];
    for (int s = 0; s < segments; s++) {
      segmentStart[s + 1] = segmentStart[s] + counts[segmentBucket[s]];
    }
    int[] segmentOfBucket = counts; // reused: -1 for buckets nobody wants
    Arrays.fill(segmentOfBucket, -1);
    for (int s = 0; s < segments; s++) {
      segmentOfBucket[segmentBucket[s]] = s;
    }
    int[] positions = new int[(int) gathered];
    int[] fill = Arrays.copyOf(segmentStart, segments);
    for (int i = 0; i < n; i++) {
      int s = segmentOfBucket[(int) ((key(a[i]) - minKey) >>> shift)];
      if (s >= 0) {
        positions[fill[s]++] = i;
      }
    }

    // The exact order statistics: sort each wanted bucket's few values.
    double[] wanted = new double[m];
    double[] bucketValues = new double[0];
    int sortedSegment = -1;
    for (int i = 0; i < m; i++) {
      int s = segmentOfRank[i];
      if (s != sortedSegment) {
        int from = segmentStart[s];
        int to = segmentStart[s + 1];
        bucketValues = new double[to - from];
        for (int j = from; j < to; j++) {
          bucketValues[j - from] = a[positions[j]];
        }
        Arrays.sort(bucketValues);
        sortedSegment = s;
      }
      wanted[i] = bucketValues[rankInBucket[i]];
    }
    place(a, k, wanted, positions, segmentStart, segmentOfBucket, minKey, shift);
    return true;
  }

  /**
   * Puts {@code wanted[i]} at index {@code k[i]} by swaps only. The values at the ranks' indices are
   * taken out; those the ranks want but did not hold are fetched from other indices (found through
   * the positions of their bucket), and the values the ranks held but do not want are put there in
   * exchange, so the array stays a permutation. A fetched index is never fetched twice: what is put
   * there is none of the values still being fetched. Values compare as {@link Double#compare} does, as
   * {@link Arrays#sort(double[])} orders them, so even -0.0 and 0.0 keep their bits and places.
   */
  private static void place(double[] a, int[] k, double[] wanted, int[] positions, int[] segmentStart,
      int[] segmentOfBucket, long minKey, int shift) {
    int m = k.length;
    double[] held = new double[m];
    for (int i = 0; i < m; i++) {
      held[i] = a[k[i]];
    }
    double[] want = wanted.clone();
    Arrays.sort(held);
    Arrays.sort(want);
    // Merge the two sorted multisets: values in both cancel; the rest must be exchanged one for one.
    double[] fetch = new double[m];
    double[] spare = new double[m];
    int fetches = 0;
    int spares = 0;
    int h = 0;
    int w = 0;
    while (h < m || w < m) {
      int c = h == m ? 1 : w == m ? -1 : Double.compare(held[h], want[w]);
      if (c == 0) {
        h++;
        w++;
      } else if (c < 0) {
        spare[spares++] = held[h++];
      } else {
        fetch[fetches++] = want[w++];
      }
    }
    for (int f = 0; f < fetches; f++) {
      double v = fetch[f];
      int s = segmentOfBucket[(int) ((key(v) - minKey) >>> shift)];
      int j = segmentStart[s];
      while (Double.compare(a[positions[j]], v) != 0 || Arrays.binarySearch(k, positions[j]) >= 0) {
        j++; // cannot run past the segment: the bucket holds v at least as often as the ranks want it
      }
      a[positions[j]] = spare[f];
    }
    for (int i = 0; i < m; i++) {
      a[k[i]] = wanted[i];
    }
  }

  /** Multi-quickselect for ascending distinct ranks {@code k}. */
  static void quickselect(double[] a, int[] k) {
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
