package io.infermark.metrics.hdr;

import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.RunStart;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.health.ClientHealth;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.MeasurementWindow;
import io.infermark.metrics.RecordTally;
import io.infermark.metrics.RequestCounts;
import io.infermark.metrics.TokenSummary;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.HdrHistogram.Histogram;

/**
 * A run summary built as records arrive, for runs too long to keep every record
 * ({@code Benchmark.retainRecords(false)}): register it with {@code Benchmark.listener(summary)} and
 * read it during or after the run. It keeps one HdrHistogram per {@link LatencyMetric} (3
 * significant digits, nanoseconds) and a few counters, and never a record, so its memory is bounded
 * by the histograms' value range, not by the run's length (see {@link #footprintBytes()}).
 *
 * <p>It counts what {@link io.infermark.metrics.RunSummary} counts, by the same rules: warmup
 * and cooldown records only in their {@link RequestCounts} counts, failures by category and never in
 * latency, successful measured records in every metric defined for them, throughput over the same
 * {@link MeasurementWindow} (the counting is the same {@link RecordTally}). Percentiles are
 * HdrHistogram's (within 0.1 %), not exact.
 *
 * <p>Thread-safe: the engine serialises {@link #onRecord}, and readers (a progress display, the
 * caller) take the same lock for a consistent view.
 */
public final class StreamingSummary implements RunListener {

  private static final LatencyMetric[] METRICS = LatencyMetric.values();

  private final Object lock = new Object();
  private final Histogram[] histograms = new Histogram[METRICS.length];
  private final RecordTally tally = new RecordTally();
  private Optional<RunStart> start = Optional.empty();
  private ClientHealth clientHealth = ClientHealth.UNMEASURED;

  /** An empty summary, ready to be registered as a listener. */
  public StreamingSummary() {
    for (LatencyMetric m : METRICS) {
      histograms[m.ordinal()] = HdrIntervalLog.newHistogram();
    }
  }

  @Override
  public void onRunStarted(RunStart runStart) {
    synchronized (lock) {
      start = Optional.of(runStart);
    }
  }

  @Override
  public void onRecord(RequestRecord r) {
    synchronized (lock) {
      if (!tally.add(r)) {
        return;
      }
      for (LatencyMetric m : METRICS) {
        if (m == LatencyMetric.ITL) {
          recordGaps(r, histograms[m.ordinal()]);
        } else {
          for (double v : m.valuesMillis(r)) {
            histograms[m.ordinal()].recordValue(Math.max(0, Math.round(v * 1e6)));
          }
        }
      }
    }
  }

  @Override
  public void onRunFinished(RunResult result) {
    synchronized (lock) {
      clientHealth = result.clientHealth();
    }
  }

  /**
   * Whether the run's client could be trusted ({@link RunResult#clientHealth()}), once the run has
   * finished; {@link ClientHealth#UNMEASURED} until then.
   */
  public ClientHealth clientHealth() {
    synchronized (lock) {
      return clientHealth;
    }
  }

  /** ITL without the per-record array: the pooled metric can have thousands of gaps per request. */
  private static void recordGaps(RequestRecord r, Histogram h) {
    if (r.chunks().tokenChunkCount() < 2) {
      return;
    }
    ChunkTimeline.TokenGaps gaps = r.chunks().gaps();
    while (gaps.next()) {
      h.recordValue(gaps.gapNanos());
    }
  }

  /** The run this summary is listening to, once it has started. */
  public Optional<RunStart> runStart() {
    synchronized (lock) {
      return start;
    }
  }

  /** A copy of one metric's distribution so far. */
  public HdrDistribution distribution(LatencyMetric metric) {
    synchronized (lock) {
      return HdrDistribution.of(histograms[metric.ordinal()]);
    }
  }

  /** The request counts so far; {@code scheduled} counts the records seen. */
  public RequestCounts requests() {
    synchronized (lock) {
      return tally.requests();
    }
  }

  /** Failures by category so far; zero categories absent. */
  public Map<ErrorCategory, Integer> failuresByCategory() {
    synchronized (lock) {
      return tally.failuresByCategory();
    }
  }

  /** Token totals so far. */
  public TokenSummary tokens() {
    synchronized (lock) {
      return tally.tokens();
    }
  }

  /** The throughput window so far; empty until a measured request was sent. */
  public Optional<MeasurementWindow> window() {
    synchronized (lock) {
      return tally.window();
    }
  }

  /** Successful measured requests per second of the window. */
  public OptionalDouble requestThroughputRps() {
    synchronized (lock) {
      return perSecond(tally.requests().succeeded());
    }
  }

  /** Output tokens per second of the window. */
  public OptionalDouble outputTokenThroughputTps() {
    synchronized (lock) {
      return perSecond(tally.tokens().outputTokens());
    }
  }

  private OptionalDouble perSecond(long count) {
    return tally.window().map(w -> w.perSecond(count)).orElse(OptionalDouble.empty());
  }

  /** The bytes all histograms occupy; bounded by their value ranges, not by how many records were seen. */
  public long footprintBytes() {
    synchronized (lock) {
      long total = 0;
      for (Histogram h : histograms) {
        total += h.getEstimatedFootprintInBytes();
      }
      return total;
    }
  }

  @Override
  public String toString() {
    synchronized (lock) {
      Histogram ttft = histograms[LatencyMetric.TTFT.ordinal()];
      RequestCounts c = tally.requests();
      return String.format(Locale.ROOT, "StreamingSummary[%d/%d ok, %d failed%s%s]", c.succeeded(), c.measured(),
          c.failed(), ttft.getTotalCount() == 0 ? "" : String.format(Locale.ROOT, ", TTFT p50 %.3f ms p99 %.3f ms",
              ttft.getValueAtPercentile(50) / 1e6, ttft.getValueAtPercentile(99) / 1e6),
          clientHealth.isWarning() ? ", client " + clientHealth.verdict() : "");
    }
  }
}
