package io.infermark.attribution.surrogate;

import io.infermark.core.capture.RequestRecord;
import java.util.Arrays;
import java.util.List;

/**
 * The load each request met, from all records' send and end times by a sweep over sorted times: how
 * many others were in flight when it was sent, and how many were sent in the window before it.
 * O(n log n) for n records; records that were never sent take no part and get zeros.
 */
final class LoadFeatures {

  private final List<RequestRecord> records;
  private final long[] sends;
  private final long[] ends;
  private final long windowNanos;

  private LoadFeatures(List<RequestRecord> records, long[] sends, long[] ends, long windowNanos) {
    this.records = records;
    this.sends = sends;
    this.ends = ends;
    this.windowNanos = windowNanos;
  }

  static LoadFeatures of(List<RequestRecord> records, long windowNanos) {
    long[] sends = new long[records.size()];
    long[] ends = new long[records.size()];
    int n = 0;
    for (RequestRecord r : records) {
      if (r.wasSent()) {
        sends[n] = r.sendNanos();
        ends[n] = r.sendNanos() + r.endOffsetNanos();
        n++;
      }
    }
    sends = Arrays.copyOf(sends, n);
    ends = Arrays.copyOf(ends, n);
    Arrays.sort(sends);
    Arrays.sort(ends);
    return new LoadFeatures(records, sends, ends, windowNanos);
  }

  /**
   * Other requests in flight when record {@code i} was sent: sent at or before its send time and
   * ending after it. A request ending exactly at that instant is no longer in flight.
   */
  int inFlightAtSend(int i) {
    RequestRecord r = records.get(i);
    if (!r.wasSent()) {
      return 0;
    }
    long t = r.sendNanos();
    int started = atOrBefore(sends, t);
    int ended = atOrBefore(ends, t);
    boolean selfInFlight = r.endOffsetNanos() > 0;
    return started - ended - (selfInFlight ? 1 : 0);
  }

  /** Requests sent in {@code [send − window, send)} of record {@code i}. */
  int arrivalsBefore(int i) {
    RequestRecord r = records.get(i);
    if (!r.wasSent()) {
      return 0;
    }
    long t = r.sendNanos();
    return before(sends, t) - before(sends, t - windowNanos);
  }

  /** How many of the sorted values are {@code <= t}. */
  static int atOrBefore(long[] sorted, long t) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] <= t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** How many of the sorted values are {@code < t}. */
  static int before(long[] sorted, long t) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
