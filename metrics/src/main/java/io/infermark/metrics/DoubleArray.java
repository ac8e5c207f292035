package io.infermark.metrics;

import java.util.Arrays;

/**
 * A growable array of primitive doubles, so that collecting millions of latencies neither boxes
 * nor copies more than a doubling strategy needs. Not thread-safe; internal to summaries.
 */
final class DoubleArray {

  private double[] values;
  private int size;

  DoubleArray(int initialCapacity) {
    values = new double[Math.max(initialCapacity, 4)];
  }

  void add(double v) {
    if (size == values.length) {
      // Grow by half rather than double: the pooled ITL array can hold 10^8 values.
      if (size >= Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("more than " + size + " values: too many for one array");
      }
      values = Arrays.copyOf(values, (int) Math.min(size + (size >> 1) + 4L, Integer.MAX_VALUE - 8));
    }
    values[size++] = v;
  }

  /** Adds a duration in nanoseconds as milliseconds; division keeps the conversion correctly rounded. */
  void addNanosAsMillis(double nanos) {
    add(nanos / 1e6);
  }

  /** The number of values. */
  int size() {
    return size;
  }

  /** A new array holding the first {@code n} of {@code values}, with room to grow. */
  static DoubleArray of(double[] values, int n) {
    DoubleArray copy = new DoubleArray(Math.max(n + (n >> 1), 16));
    System.arraycopy(values, 0, copy.values, 0, n);
    copy.size = n;
    return copy;
  }

  /** The values, trimmed to size; the array may be this object's own storage, which must not be used afterwards. */
  double[] release() {
    double[] out = size == values.length ? values : Arrays.copyOf(values, size);
    values = new double[0];
    size = 0;
    return out;
  }
}
