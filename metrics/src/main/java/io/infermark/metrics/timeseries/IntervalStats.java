package io.infermark.metrics.timeseries;

import java.util.Locale;
import java.util.Objects;

/**
 * What happened in one interval of a run. Times are nanoseconds from the run's origin; the interval
 * is {@code [startNanos, endNanos)}. Warmup requests and requests never sent are left out.
 *
 * @param index the interval's position, from 0
 * @param startNanos inclusive start
 * @param endNanos exclusive end
 * @param started requests actually sent in the interval
 * @param completed successful requests whose stream ended in the interval
 * @param failed failed requests whose attempt ended in the interval
 * @param meanInFlight time-weighted mean of requests in flight (sent, not yet ended) over the interval
 * @param maxInFlight most requests in flight at any instant of the interval
 * @param outputTokens output tokens that arrived in the interval (successful requests; see {@link TimeSeries})
 * @param ttft TTFT of requests whose first token arrived in the interval
 * @param itl ITL gaps that ended in the interval
 * @param e2e E2E of requests whose last token arrived in the interval
 */
public record IntervalStats(int index, long startNanos, long endNanos, int started, int completed, int failed,
    double meanInFlight, int maxInFlight, double outputTokens, IntervalLatency ttft, IntervalLatency itl,
    IntervalLatency e2e) {

  /** Validates. */
  public IntervalStats {
    if (endNanos <= startNanos) {
      throw new IllegalArgumentException("interval end " + endNanos + " must be after start " + startNanos);
    }
    Objects.requireNonNull(ttft, "ttft");
    Objects.requireNonNull(itl, "itl");
    Objects.requireNonNull(e2e, "e2e");
  }

  /** Output tokens per second of this interval. */
  public double outputTokensPerSecond() {
    return outputTokens / ((endNanos - startNanos) / 1e9);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "IntervalStats[#%d %.3f-%.3f s: %d started, %d completed, %d failed, "
        + "%.2f in flight (max %d), %.1f tok/s]", index, startNanos / 1e9, endNanos / 1e9, started, completed, failed,
        meanInFlight, maxInFlight, outputTokensPerSecond());
  }
}
