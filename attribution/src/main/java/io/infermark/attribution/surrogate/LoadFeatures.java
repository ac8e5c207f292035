package io.infermark.attribution.surrogate;

import io.infermark.core.capture.RequestRecord;
import java.util.Arrays;
import java.util.List;

/**
 * The load each request met, from all records' send, first-token and end times by sweeps over sorted
 * times: how many others were in flight when it was sent, how many were sent in the window before it,
 * and how many prompt tokens others had in prefill while it was in flight. O(n log n) for n records;
 * records that were never sent take no part and get zeros.
 */
final class LoadFeatures {

  private final List<RequestRecord> records;
  private final long[] sends;
  private final long[] ends;
  private final long windowNanos;
  private final double[] promptTokens;
  private final boolean anyPromptTokens;
  /** Prefill windows ordered by start, and by end, with prefix sums of their prompt tokens. */
  private final long[] prefillStarts;
  private final double[] tokensByStart;
  private final long[] prefillEnds;
  private final double[] tokensByEnd;

  private LoadFeatures(List<RequestRecord> records, long[] sends, long[] ends, long windowNanos,
      double[] promptTokens, long[][] prefill, double[][] prefixSums) {
    this.records = records;
    this.sends = sends;
    this.ends = ends;
    this.windowNanos = windowNanos;
    this.promptTokens = promptTokens;
    this.anyPromptTokens = Arrays.stream(promptTokens).anyMatch(v -> !Double.isNaN(v));
    this.prefillStarts = prefill[0];
    this.prefillEnds = prefill[1];
    this.tokensByStart = prefixSums[0];
    this.tokensByEnd = prefixSums[1];
  }

  /**
   * @param promptTokens each record's prompt tokens, NaN when unknown (counted as 0 in others' sums)
   */
  static LoadFeatures of(List<RequestRecord> records, long windowNanos, double[] promptTokens) {
    int size = records.size();
    long[] sends = new long[size];
    long[] ends = new long[size];
    long[][] byStart = new long[size][];
    long[][] byEnd = new long[size][];
    int n = 0;
    for (int i = 0; i < size; i++) {
      RequestRecord r = records.get(i);
      if (r.wasSent()) {
        sends[n] = r.sendNanos();
        ends[n] = r.sendNanos() + r.endOffsetNanos();
        long tokens = Double.isNaN(promptTokens[i]) ? 0 : Math.round(promptTokens[i]);
        byStart[n] = new long[] {sends[n], tokens};
        byEnd[n] = new long[] {prefillEnd(r), tokens};
        n++;
      }
    }
    sends = Arrays.copyOf(sends, n);
    ends = Arrays.copyOf(ends, n);
    Arrays.sort(sends);
    Arrays.sort(ends);
    long[][] starts = sortedWithPrefixSums(Arrays.copyOf(byStart, n));
    long[][] finishes = sortedWithPrefixSums(Arrays.copyOf(byEnd, n));
    return new LoadFeatures(records, sends, ends, windowNanos, promptTokens.clone(),
        new long[][] {starts[0], finishes[0]}, new double[][] {toDouble(starts[1]), toDouble(finishes[1])});
  }

  /** When a sent request left prefill: its first token, or its end when it never produced one. */
  private static long prefillEnd(RequestRecord r) {
    return r.sendNanos() + r.chunks().firstTokenOffsetNanos().orElse(r.endOffsetNanos());
  }

  /** Times sorted ascending, and {@code sums[k]} = the tokens of the first k of them. */
  private static long[][] sortedWithPrefixSums(long[][] timeAndTokens) {
    Arrays.sort(timeAndTokens, (a, b) -> Long.compare(a[0], b[0]));
    long[] times = new long[timeAndTokens.length];
    long[] sums = new long[timeAndTokens.length + 1];
    for (int k = 0; k < timeAndTokens.length; k++) {
      times[k] = timeAndTokens[k][0];
      sums[k + 1] = sums[k] + timeAndTokens[k][1];
    }
    return new long[][] {times, sums};
  }

  private static double[] toDouble(long[] a) {
    return Arrays.stream(a).asDoubleStream().toArray();
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

  /**
   * Prompt tokens of the other sent requests whose prefill window, send to first token, overlapped
   * record {@code i}'s lifetime, send to end: {@code start < end_i} and {@code firstToken > send_i}.
   * NaN when no record has a known prompt length; 0 for a record that was not sent or ended at once.
   */
  double overlappingPrefillTokens(int i) {
    if (!anyPromptTokens) {
      return Double.NaN;
    }
    RequestRecord r = records.get(i);
    long send = r.sendNanos();
    long end = send + r.endOffsetNanos();
    if (!r.wasSent() || end <= send) {
      return 0;
    }
    // Windows starting before our end, minus those already over by our send (they started before it too).
    double overlapping = tokensByStart[before(prefillStarts, end)] - tokensByEnd[atOrBefore(prefillEnds, send)];
    boolean selfOverlaps = prefillEnd(r) > send;
    double own = Double.isNaN(promptTokens[i]) ? 0 : Math.round(promptTokens[i]);
    return overlapping - (selfOverlaps ? own : 0);
  }

  /** How many of the sorted values are {@code <= t}. */
  private static int atOrBefore(long[] sorted, long t) {
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
  private static int before(long[] sorted, long t) {
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
