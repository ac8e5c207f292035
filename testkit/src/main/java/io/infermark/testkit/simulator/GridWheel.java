package io.infermark.testkit.simulator;

import java.util.ArrayList;
import java.util.Arrays;

/**
 * Items due at whole grid steps, kept in a ring of buckets (a hashed timing wheel): adding is
 * constant time and each item is looked at once when its step comes, where a priority queue of
 * hundreds of streams costs a logarithmic sift, with a cache miss per level, for every token.
 * Steps further ahead than the ring wait in their bucket for the ring to come round. Not
 * thread-safe: the clock thread owns it.
 */
final class GridWheel<T> {

  private final int mask;
  private final Object[][] items;
  private final long[][] steps;
  private final int[] sizes;
  private long done = Long.MIN_VALUE; // every item due at or before this step has been polled
  private int count;

  /** A wheel of {@code slots} buckets (rounded up to a power of two). */
  GridWheel(int slots) {
    int n = Integer.highestOneBit(Math.max(2, slots - 1)) << 1;
    this.mask = n - 1;
    this.items = new Object[n][];
    this.steps = new long[n][];
    this.sizes = new int[n];
  }

  boolean isEmpty() {
    return count == 0;
  }

  int size() {
    return count;
  }

  /** Adds {@code item} due at {@code step}; a step already polled counts as the next one. */
  void add(T item, long step) {
    if (done != Long.MIN_VALUE && step <= done) {
      step = done + 1;
    }
    int slot = (int) (step & mask);
    int n = sizes[slot];
    if (items[slot] == null) {
      items[slot] = new Object[8];
      steps[slot] = new long[8];
    } else if (n == items[slot].length) {
      items[slot] = Arrays.copyOf(items[slot], n * 2);
      steps[slot] = Arrays.copyOf(steps[slot], n * 2);
    }
    items[slot][n] = item;
    steps[slot][n] = step;
    sizes[slot] = n + 1;
    count++;
  }

  /** Moves every item due at or before {@code step} into {@code out}, in step order bucket by bucket. */
  @SuppressWarnings("unchecked")
  void pollDue(long step, ArrayList<T> out) {
    if (count == 0 || done == Long.MIN_VALUE) {
      done = step;
      if (count == 0) {
        return;
      }
      // First poll with items present: visit every bucket once.
      for (int slot = 0; slot <= mask; slot++) {
        takeDue(slot, step, out);
      }
      return;
    }
    long from = done + 1;
    long buckets = Math.min(step - done, mask + 1L);
    for (long s = from; s < from + buckets && count > 0; s++) {
      takeDue((int) (s & mask), step, out);
    }
    done = Math.max(done, step);
  }

  @SuppressWarnings("unchecked")
  private void takeDue(int slot, long step, ArrayList<T> out) {
    int n = sizes[slot];
    if (n == 0) {
      return;
    }
    Object[] it = items[slot];
    long[] st = steps[slot];
    int kept = 0;
    for (int i = 0; i < n; i++) {
      if (st[i] <= step) {
        out.add((T) it[i]);
        count--;
      } else {
        it[kept] = it[i];
        st[kept] = st[i];
        kept++;
      }
    }
    Arrays.fill(it, kept, n, null);
    sizes[slot] = kept;
  }

  /** The earliest step an item is due at, or {@link Long#MAX_VALUE} when there is none. */
  long nextStep() {
    if (count == 0) {
      return Long.MAX_VALUE;
    }
    long earliest = Long.MAX_VALUE;
    if (done == Long.MIN_VALUE) {
      for (int slot = 0; slot <= mask; slot++) {
        for (int i = 0; i < sizes[slot]; i++) {
          earliest = Math.min(earliest, steps[slot][i]);
        }
      }
      return earliest;
    }
    long start = done + 1;
    for (long s = start; s <= start + mask; s++) {
      int slot = (int) (s & mask);
      long[] st = steps[slot];
      for (int i = 0; i < sizes[slot]; i++) {
        if (st[i] == s) {
          return s; // nothing in an earlier bucket, so nothing earlier
        }
        earliest = Math.min(earliest, st[i]);
      }
    }
    return earliest;
  }
}
