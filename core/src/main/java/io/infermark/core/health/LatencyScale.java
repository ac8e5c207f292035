package io.infermark.core.health;

import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The scale of what a run measured, for weighing the client's error bound against it: TTFT, ITL, TPOT and E2E of
 * the successful measured requests (by the definitions of docs/metrics.md), in histograms of two significant digits
 * so memory stays flat however long the run. Fed one record at a time as the run ends them; thread-safe.
 */
final class LatencyScale {

  private static final long HIGHEST = TimeUnit.HOURS.toNanos(1);

  private final Histogram ttft = new Histogram(HIGHEST, 2);
  private final Histogram itl = new Histogram(HIGHEST, 2);
  private final Histogram tpot = new Histogram(HIGHEST, 2);
  private final Histogram e2e = new Histogram(HIGHEST, 2);
  /** Output tokens N of the requests with N > 1, for TPOT's bound. */
  private final Histogram outputs = new Histogram(Integer.MAX_VALUE, 2);

  private long measured;
  private long failed;
  private long slowestFailureNanos;

  /** Adds a record: only successful measured ones with a token count feed the metrics; measured failures are counted. */
  synchronized void add(RequestRecord r) {
    if (!r.measured() || !r.wasSent()) {
      return;
    }
    measured++;
    if (!r.succeeded()) {
      failed++;
      slowestFailureNanos = Math.max(slowestFailureNanos, r.endOffsetNanos());
      return;
    }
    ChunkTimeline c = r.chunks();
    if (c.firstTokenOffsetNanos().isEmpty()) {
      return;
    }
    long first = c.firstTokenOffsetNanos().getAsLong();
    long last = c.lastTokenOffsetNanos().getAsLong();
    ttft.recordValue(clamp(first));
    e2e.recordValue(clamp(last));
    int n = r.outputTokens();
    if (n > 1) {
      tpot.recordValue(clamp((last - first) / (n - 1)));
      outputs.recordValue(n);
    }
    if (c.tokenChunkCount() > 1) {
      ChunkTimeline.TokenGaps gaps = c.gaps();
      while (gaps.next()) {
        itl.recordValue(clamp(gaps.gapNanos()));
      }
    }
  }

  /** Measured requests observed that were sent. */
  synchronized long measured() {
    return measured;
  }

  /** True when at least one measured request was observed and every one failed. */
  synchronized boolean allFailed() {
    return measured > 0 && failed == measured;
  }

  /** The longest time from send to failure among the failed measured requests, ns. */
  synchronized long slowestFailureNanos() {
    return slowestFailureNanos;
  }

  private static long clamp(long nanos) {
    return Math.min(Math.max(nanos, 0), HIGHEST);
  }

  /** Each metric with values, its percentiles and the error bound a floor of {@code floorNanos} puts on it. */
  synchronized List<MetricBound> bounds(long floorNanos) {
    List<MetricBound> bounds = new ArrayList<>(4);
    add(bounds, "TTFT", ttft, floorNanos, true);
    if (tpot.getTotalCount() > 0) {
      long gaps = Math.max(1, outputs.getValueAtPercentile(50) - 1);
      add(bounds, "TPOT", tpot, floorNanos / gaps, true);
    }
    add(bounds, "ITL", itl, floorNanos, false);
    add(bounds, "E2E", e2e, floorNanos, true);
    return bounds;
  }

  private static void add(List<MetricBound> bounds, String name, Histogram h, long bound, boolean judged) {
    if (h.getTotalCount() == 0) {
      return;
    }
    long p50 = h.getValueAtPercentile(50);
    long p99 = Math.max(p50, h.getValueAtPercentile(99));
    bounds.add(new MetricBound(name, (int) Math.min(h.getTotalCount(), Integer.MAX_VALUE), p50, p99, bound, judged));
  }

  @Override
  public synchronized String toString() {
    return "LatencyScale[" + ttft.getTotalCount() + " requests, " + itl.getTotalCount() + " gaps]";
  }
}
