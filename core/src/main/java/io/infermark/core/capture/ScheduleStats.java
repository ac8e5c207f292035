package io.infermark.core.capture;

import io.infermark.core.stats.QuantileMethod;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * Whether the client kept its schedule: the rate it was asked for, the rate the seeded schedule
 * contained, the rate it actually sent at, and how late sends were (schedule lag = actual send
 * minus intended send, which includes client queue time under an in-flight cap). Covers measured
 * (neither warmup nor cooldown) requests that were sent.
 *
 * @param requestedRate the configured mean rate in requests/s (open loop), if any
 * @param scheduledRate requests/s in the precomputed schedule: (n−1) / (last − first intended), 0 if n &lt; 2
 * @param achievedRate requests/s actually sent, over the schedule's own span: (n−1) / (last send − first
 *     intended send), 0 if n &lt; 2. Measured from the first intended time rather than the first actual
 *     send, so a run whose first sends were late is not credited with over-delivery when it catches up
 * @param sent measured requests that were sent
 * @param notSent measured requests scheduled but never sent because the run ended first
 * @param lagP50Nanos median schedule lag
 * @param lagP90Nanos 90th percentile schedule lag
 * @param lagP99Nanos 99th percentile schedule lag
 * @param lagP999Nanos 99.9th percentile schedule lag
 * @param lagMaxNanos largest schedule lag
 */
public record ScheduleStats(OptionalDouble requestedRate, double scheduledRate, double achievedRate, int sent,
    int notSent, double lagP50Nanos, double lagP90Nanos, double lagP99Nanos, double lagP999Nanos,
    double lagMaxNanos) {

  /** Computes the statistics from a run's records (percentiles by linear interpolation). */
  public static ScheduleStats of(List<RequestRecord> records, OptionalDouble requestedRate) {
    int n = 0;
    int notSent = 0;
    for (RequestRecord r : records) {
      if (r.measured()) {
        if (r.wasSent()) {
          n++;
        } else {
          notSent++;
        }
      }
    }
    long[] intended = new long[n];
    long[] sends = new long[n];
    double[] lags = new double[n];
    int i = 0;
    for (RequestRecord r : records) {
      if (r.measured() && r.wasSent()) {
        intended[i] = r.intendedNanos();
        sends[i] = r.sendNanos();
        lags[i] = r.scheduleLagNanos();
        i++;
      }
    }
    if (n == 0) {
      return new ScheduleStats(requestedRate, 0, 0, 0, notSent, 0, 0, 0, 0, 0);
    }
    Arrays.sort(intended);
    Arrays.sort(sends);
    Arrays.sort(lags);
    QuantileMethod q = QuantileMethod.LINEAR;
    return new ScheduleStats(requestedRate, rate(intended), rate(n, intended[0], sends[n - 1]), n, notSent,
        q.quantile(lags, 0.5),
        q.quantile(lags, 0.9), q.quantile(lags, 0.99), q.quantile(lags, 0.999), lags[n - 1]);
  }


  private static double rate(long[] sortedTimes) {
    return rate(sortedTimes.length, sortedTimes[0], sortedTimes[sortedTimes.length - 1]);
  }

  /** Requests/s of {@code n} events from {@code first} to {@code last} ns: (n−1) / span, 0 if n &lt; 2 or no span. */
  static double rate(int n, long first, long last) {
    long span = last - first;
    return n < 2 || span <= 0 ? 0 : (n - 1) / (span / 1e9);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT,
        "ScheduleStats[%srate scheduled %.2f/s, achieved %.2f/s, %d sent%s, lag p50 %.3f ms, p99 %.3f ms, max %.3f ms]",
        requestedRate.isPresent() ? String.format(Locale.ROOT, "requested %.2f/s, ", requestedRate.getAsDouble()) : "",
        scheduledRate, achievedRate, sent, notSent > 0 ? ", " + notSent + " NOT SENT" : "", lagP50Nanos / 1e6,
        lagP99Nanos / 1e6, lagMaxNanos / 1e6);
  }

}
