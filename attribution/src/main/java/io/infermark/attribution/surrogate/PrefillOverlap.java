package io.infermark.attribution.surrogate;

import io.infermark.core.capture.RequestRecord;
import java.util.Arrays;
import java.util.List;

/**
 * How many prompt tokens other requests had in prefill while each request was in flight, from every
 * sent record's prefill window (send to first token, or to its end when it produced none) by prefix
 * sums over the windows sorted by start and by end: O(n log n) for n records.
 */
final class PrefillOverlap {

  private final List<RequestRecord> records;
  private final double[] promptTokens;
  private final boolean anyPromptTokens;
  private final long[] starts;
  private final long[] tokensByStart;
  private final long[] ends;
  private final long[] tokensByEnd;

  private PrefillOverlap(List<RequestRecord> records, double[] promptTokens, long[][] byStart, long[][] byEnd) {
    this.records = records;
    this.promptTokens = promptTokens;
    this.anyPromptTokens = Arrays.stream(promptTokens).anyMatch(v -> !Double.isNaN(v));
    this.starts = byStart[0];
    this.tokensByStart = byStart[1];
    this.ends = byEnd[0];
    this.tokensByEnd = byEnd[1];
  }

  /**
   * @param promptTokens each record's prompt tokens, NaN when unknown (counted as 0 in others' sums)
   */
  static PrefillOverlap of(List<RequestRecord> records, double[] promptTokens) {
    long[][] byStart = new long[records.size()][];
    long[][] byEnd = new long[records.size()][];
    int n = 0;
    for (int i = 0; i < records.size(); i++) {
      RequestRecord r = records.get(i);
      if (r.wasSent()) {
        long tokens = tokens(promptTokens[i]);
        byStart[n] = new long[] {r.sendNanos(), tokens};
        byEnd[n] = new long[] {prefillEnd(r), tokens};
        n++;
      }
    }
    return new PrefillOverlap(records, promptTokens, sortedWithPrefixSums(Arrays.copyOf(byStart, n)),
        sortedWithPrefixSums(Arrays.copyOf(byEnd, n)));
  }

  /**
   * Prompt tokens of the other sent requests whose prefill window overlapped record {@code i}'s
   * lifetime, send to end: {@code start < end_i} and {@code firstToken > send_i}. NaN when no record
   * has a known prompt length; 0 for a record that was not sent or ended at once.
   */
  double tokensOverlapping(int i) {
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
    long overlapping = tokensByStart[LoadFeatures.before(starts, end)]
        - tokensByEnd[LoadFeatures.atOrBefore(ends, send)];
    boolean selfOverlaps = prefillEnd(r) > send;
    return overlapping - (selfOverlaps ? tokens(promptTokens[i]) : 0);
  }

  private static long tokens(double promptTokens) {
    return Double.isNaN(promptTokens) ? 0 : Math.round(promptTokens);
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
}
