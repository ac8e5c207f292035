package io.infermark.metrics;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenCountSource;
import io.infermark.core.workload.WorkloadTags;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * Everything a summary counts besides latencies, one record at a time: requests by kind (warmup,
 * cooldown, succeeded, failed), failures by category, the measurement window and token totals, by
 * the rules {@link RunSummary} documents. {@link RunSummary} and the streaming summary both count
 * through it, so the two agree. Not thread-safe.
 */
public final class RecordTally {

  private final int[] failures = new int[ErrorCategory.values().length];
  private final int[] sources = new int[TokenCountSource.values().length];
  private int warmup;
  private int cooldown;
  private int succeeded;
  private int failed;
  private int withoutTokens;
  private long outputTokens;
  private long inputTokens;
  private int withInput;
  private int clientInput;
  private int disagreements;
  private int askedExact;
  private int shortOutputs;
  private long shortExampleIndex = Long.MAX_VALUE;
  private int shortExampleTokens;
  private int shortExampleAsked;
  private long windowStart = Long.MAX_VALUE;
  private long windowEnd = Long.MIN_VALUE;

  /**
   * Counts a record.
   *
   * @return true when it is a successful measured request, whose latencies the caller collects
   */
  public boolean add(RequestRecord r) {
    if (r.warmup()) {
      warmup++;
      return false;
    }
    if (r.cooldown()) {
      cooldown++;
      return false;
    }
    if (r.wasSent()) {
      windowStart = Math.min(windowStart, r.intendedNanos());
      windowEnd = Math.max(windowEnd, r.sendNanos() + r.endOffsetNanos());
    }
    Failure failure = r.failure().orElse(null);
    if (failure != null) {
      failed++;
      failures[failure.category().ordinal()]++;
      return false;
    }
    succeeded++;
    if (r.chunks().tokenChunkCount() == 0) {
      withoutTokens++;
    }
    outputTokens += r.outputTokens();
    var prompt = r.usage().promptTokens();
    if (prompt.isPresent()) {
      inputTokens += prompt.getAsInt();
      withInput++;
    } else {
      int counted = intTag(r, WorkloadTags.INPUT_TOKENS_ACHIEVED);
      if (counted >= 0) {
        inputTokens += counted; // the client's count, as outputs fall back to the stream's own
        withInput++;
        clientInput++;
      }
    }
    sources[r.outputTokensSource().ordinal()]++;
    if (r.tokenCountsDisagree()) {
      disagreements++;
    }
    int asked = Math.max(0, intTag(r, WorkloadTags.OUTPUT_TOKENS_REQUESTED));
    if (asked > 0) {
      askedExact++;
      if (ShortOutputs.isShort(r.outputTokens(), asked)) {
        shortOutputs++;
        if (r.index() < shortExampleIndex) {
          shortExampleIndex = r.index();
          shortExampleTokens = r.outputTokens();
          shortExampleAsked = asked;
        }
      }
    }
    return true;
  }

  /** Request counts of the records counted; every record counted is one scheduled request. */
  public RequestCounts requests() {
    int measured = succeeded + failed;
    return new RequestCounts(warmup + cooldown + measured, warmup, cooldown, measured, succeeded, failed,
        withoutTokens);
  }

  /** Failures by category; zero categories absent. */
  public Map<ErrorCategory, Integer> failuresByCategory() {
    EnumMap<ErrorCategory, Integer> byCategory = new EnumMap<>(ErrorCategory.class);
    for (ErrorCategory c : ErrorCategory.values()) {
      if (failures[c.ordinal()] > 0) {
        byCategory.put(c, failures[c.ordinal()]);
      }
    }
    return Collections.unmodifiableMap(byCategory);
  }

  /** From the first measured intended send to the last measured end; empty until one was sent. */
  public Optional<MeasurementWindow> window() {
    return windowStart == Long.MAX_VALUE ? Optional.empty()
        : Optional.of(new MeasurementWindow(windowStart, windowEnd));
  }

  /** Token totals over the successful measured requests. */
  public TokenSummary tokens() {
    EnumMap<TokenCountSource, Integer> bySource = new EnumMap<>(TokenCountSource.class);
    for (TokenCountSource s : TokenCountSource.values()) {
      bySource.put(s, sources[s.ordinal()]);
    }
    return new TokenSummary(succeeded, outputTokens, inputTokens, withInput, bySource, disagreements,
        askedExact == 0 ? ShortOutputs.NONE
            : new ShortOutputs(shortOutputs, askedExact, shortExampleTokens, shortExampleAsked), clientInput);
  }

  /** A tag's non-negative integer value, or -1 when absent or not such a number. */
  private static int intTag(RequestRecord r, String name) {
    String v = r.tags().get(name);
    if (v == null) {
      return -1;
    }
    try {
      int n = Integer.parseInt(v.strip());
      return n >= 0 ? n : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  @Override
  public String toString() {
    return "RecordTally[" + requests() + "]";
  }
}
