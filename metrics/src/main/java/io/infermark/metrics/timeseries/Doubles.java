package io.infermark.metrics.timeseries;

import java.util.Arrays;

/** A growable primitive double array, internal to the time-resolved views. */
final class Doubles {

  private double[] values = new double[8];
  private int size;

  void add(double v) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size + (size >> 1) + 8);
    }
    values[size++] = v;
  }

  int size() {
    return size;
  }

  /** Copies the values, in insertion order, into the start of {@code out}. */
  void copyInto(double[] out) {
    System.arraycopy(values, 0, out, 0, size);
  }

  /** The largest value, or negative infinity when empty. */
  double max() {
    double m = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < size; i++) {
      m = Math.max(m, values[i]);
    }
    return m;
  }

  /** The values sorted ascending, trimmed to size. */
  double[] sorted() {
    double[] out = Arrays.copyOf(values, size);
    Arrays.sort(out);
    return out;
  }
}
