package io.infermark.metrics.timeseries;

import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;

/**
 * When each latency value of a request happened, for the views that place values in time: TTFT and
 * TTFC at the first (content) token's arrival, ITL gaps at the arrival of the chunk that ends them,
 * and every other per-request metric at the request's last token-bearing chunk (its completion).
 * Times are nanoseconds from the run's origin.
 */
final class TimedValues {

  /** Receives one value in ms at one time. */
  interface Sink {
    void accept(long atNanos, double millis);
  }

  private TimedValues() {}

  static void collect(LatencyMetric metric, RequestRecord r, Sink sink) {
    ChunkTimeline c = r.chunks();
    if (metric == LatencyMetric.ITL) {
      if (c.tokenChunkCount() < 2) {
        return;
      }
      ChunkTimeline.TokenGaps gaps = c.gaps();
      while (gaps.next()) {
        sink.accept(r.sendNanos() + gaps.endOffsetNanos(), gaps.gapNanos() / 1e6);
      }
      return;
    }
    double[] values = metric.valuesMillis(r);
    if (values.length == 0) {
      return;
    }
    long at;
    if (metric == LatencyMetric.TTFT || metric == LatencyMetric.TTFT_FROM_INTENDED) {
      at = r.sendNanos() + c.firstTokenOffsetNanos().getAsLong();
    } else if (metric == LatencyMetric.TTFC) {
      at = r.sendNanos() + c.firstOffsetNanos(io.infermark.core.capture.ChunkKind.CONTENT).getAsLong();
    } else if (metric == LatencyMetric.SCHEDULE_LAG) {
      at = r.sendNanos();
    } else if (metric == LatencyMetric.STREAM_CLOSE) {
      at = r.sendNanos() + r.endOffsetNanos();
    } else {
      at = r.sendNanos() + c.lastTokenOffsetNanos().orElse(r.endOffsetNanos());
    }
    for (double v : values) {
      sink.accept(at, v);
    }
  }
}
