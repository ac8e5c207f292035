package io.infermark.core.capture;

import java.util.OptionalDouble;
import org.HdrHistogram.Histogram;

/**
 * {@link ScheduleStats} accumulated one record at a time in constant memory, for runs that do not
 * retain their records: rates from the first and last times, lag percentiles from an HdrHistogram
 * at 3 significant digits (so within 0.1 % of the exact value), the maximum exact.
 */
public final class StreamingScheduleStats {

  private final Histogram lags = new Histogram(3);
  private int sent;
  private int notSent;
  private long firstIntended = Long.MAX_VALUE;
  private long lastIntended = Long.MIN_VALUE;
  private long lastSend = Long.MIN_VALUE;
  private long maxLag;

  /** Adds one record; records outside the measured window are ignored. */
  public void add(RequestRecord r) {
    if (!r.measured()) {
      return;
    }
    if (!r.wasSent()) {
      notSent++;
      return;
    }
    sent++;
    firstIntended = Math.min(firstIntended, r.intendedNanos());
    lastIntended = Math.max(lastIntended, r.intendedNanos());
    lastSend = Math.max(lastSend, r.sendNanos());
    long lag = Math.max(0, r.scheduleLagNanos());
    maxLag = Math.max(maxLag, lag);
    lags.recordValue(lag);
  }

  /** The schedule statistics of the records added so far, against {@code requestedRate} (requests per second). */
  public ScheduleStats result(OptionalDouble requestedRate) {
    if (sent == 0) {
      return new ScheduleStats(requestedRate, 0, 0, 0, notSent, 0, 0, 0, 0, 0);
    }
    return new ScheduleStats(requestedRate, ScheduleStats.rate(sent, firstIntended, lastIntended),
        ScheduleStats.rate(sent, firstIntended, lastSend), sent, notSent, lags.getValueAtPercentile(50),
        lags.getValueAtPercentile(90), lags.getValueAtPercentile(99), lags.getValueAtPercentile(99.9), maxLag);
  }
}
