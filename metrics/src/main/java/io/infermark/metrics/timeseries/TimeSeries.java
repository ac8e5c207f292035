package io.infermark.metrics.timeseries;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A run cut into equal intervals (1 s by default) from its origin: requests started, completed and
 * failed, requests in flight, output tokens per second and TTFT/ITL/E2E percentiles per interval
 * ({@link IntervalStats}), plus the run's exact peaks: the most requests in flight at any instant,
 * and the most output tokens in any sliding window of one interval's length.
 *
 * <p>Which records count: measured (non-warmup) requests that were sent. A request is in flight from
 * its send to its end ({@code send + endOffsetNanos}), half-open, so one that ends exactly when
 * another starts does not overlap it. Output tokens come from successful requests only (as in the
 * run's throughput) and are placed at the arrival of the token-bearing chunks that carried them:
 * each chunk's stated token count when the server stated one for every chunk, otherwise N divided
 * evenly over the request's token-bearing chunks; so the tokens of a request add up to its N.
 *
 * <p>Peaks are exact, by sweep lines over the sorted events rather than from the intervals: peak
 * concurrency over the +1/−1 send/end events, peak output tokens per second over the chunk arrivals
 * with a window of one interval (the window {@code (t − w, t]} ending at each arrival).
 */
public final class TimeSeries {

  /** The default interval. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

  /** The most intervals one series may have. */
  public static final int MAX_INTERVALS = 1_000_000;

  private final long intervalNanos;
  private final List<IntervalStats> intervals;
  private final Peak peakConcurrency;
  private final Peak peakOutputTokensPerSecond;

  private TimeSeries(long intervalNanos, List<IntervalStats> intervals, Peak peakConcurrency,
      Peak peakOutputTokensPerSecond) {
    this.intervalNanos = intervalNanos;
    this.intervals = intervals;
    this.peakConcurrency = peakConcurrency;
    this.peakOutputTokensPerSecond = peakOutputTokensPerSecond;
  }

  /** The series of a run in 1 s intervals. */
  public static TimeSeries of(RunResult run) {
    return of(run, DEFAULT_INTERVAL);
  }

  /**
   * The series of a run in intervals of the given length.
   *
   * @throws IllegalArgumentException if the interval is not positive or would make more than
   *     {@value #MAX_INTERVALS} intervals
   * @throws IllegalStateException if the run did not retain its records
   */
  public static TimeSeries of(RunResult run, Duration interval) {
    Objects.requireNonNull(run, "run");
    return of(run.records(), interval);
  }

  /** The series of records whose times are from one run's origin. */
  public static TimeSeries of(List<RequestRecord> records, Duration interval) {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(interval, "interval");
    long width = interval.toNanos();
    if (width <= 0) {
      throw new IllegalArgumentException("interval must be positive, was " + interval);
    }
    long horizon = 0;
    int sent = 0;
    long tokenChunks = 0;
    for (RequestRecord r : records) {
      if (counts(r)) {
        sent++;
        horizon = Math.max(horizon, r.sendNanos() + Math.max(r.endOffsetNanos(), 0));
        if (r.succeeded()) {
          tokenChunks += r.chunks().tokenChunkCount();
        }
      }
    }
    long count = horizon / width + 1; // the last interval holds the instant the last request ended
    if (count > MAX_INTERVALS) {
      throw new IllegalArgumentException("interval " + interval + " cuts a run of " + horizon / 1e9 + " s into "
          + count + " intervals, more than " + MAX_INTERVALS + "; choose a longer interval");
    }
    if (tokenChunks > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("too many chunks (" + tokenChunks + ") for one series");
    }
    int n = (int) count;
    int[] started = new int[n];
    int[] completed = new int[n];
    int[] failed = new int[n];
    double[] tokens = new double[n];
    Doubles[] ttft = buckets(n);
    Doubles[] itl = buckets(n);
    Doubles[] e2e = buckets(n);
    long[] events = new long[2 * sent];
    long[] chunkTimes = new long[(int) tokenChunks];
    double[] chunkTokens = new double[(int) tokenChunks];
    int e = 0;
    int c = 0;
    for (RequestRecord r : records) {
      if (!counts(r)) {
        continue;
      }
      long end = r.sendNanos() + Math.max(r.endOffsetNanos(), 0);
      started[index(r.sendNanos(), width, n)]++;
      // Ends sort before starts at the same instant: the low bit is 0 for an end, 1 for a start.
      events[e++] = (r.sendNanos() << 1) | 1;
      events[e++] = end << 1;
      if (!r.succeeded()) {
        failed[index(end, width, n)]++;
        continue;
      }
      completed[index(end, width, n)]++;
      c = placeTokens(r, width, n, tokens, chunkTimes, chunkTokens, c);
      TimedValues.collect(LatencyMetric.TTFT, r, (t, v) -> ttft[index(t, width, n)].add(v));
      TimedValues.collect(LatencyMetric.ITL, r, (t, v) -> itl[index(t, width, n)].add(v));
      TimedValues.collect(LatencyMetric.E2E, r, (t, v) -> e2e[index(t, width, n)].add(v));
    }
    java.util.Arrays.sort(events);
    double[] meanInFlight = new double[n];
    int[] maxInFlight = new int[n];
    Peak peakConcurrency = sweepConcurrency(events, width, n, meanInFlight, maxInFlight);
    Peak peakTokens = sweepTokens(chunkTimes, chunkTokens, c, width);
    List<IntervalStats> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(new IntervalStats(i, i * width, (i + 1) * width, started[i], completed[i], failed[i], meanInFlight[i],
          maxInFlight[i], tokens[i], latency(ttft[i]), latency(itl[i]), latency(e2e[i])));
    }
    return new TimeSeries(width, List.copyOf(out), peakConcurrency, peakTokens);
  }

  private static boolean counts(RequestRecord r) {
    return r.measured() && r.wasSent();
  }

  private static Doubles[] buckets(int n) {
    Doubles[] b = new Doubles[n];
    for (int i = 0; i < n; i++) {
      b[i] = new Doubles();
    }
    return b;
  }

  private static int index(long atNanos, long width, int n) {
    return (int) Math.max(0, Math.min(atNanos / width, n - 1));
  }

  private static int placeTokens(RequestRecord r, long width, int n, double[] tokens, long[] times, double[] weights,
      int c) {
    ChunkTimeline chunks = r.chunks();
    if (chunks.tokenChunkCount() == 0) {
      return c;
    }
    boolean allStated = true;
    ChunkTimeline.Cursor cursor = chunks.cursor();
    while (cursor.next()) {
      if (cursor.kind().isTokenBearing() && cursor.tokens() < 0) {
        allStated = false;
        break;
      }
    }
    double even = (double) r.outputTokens() / chunks.tokenChunkCount();
    cursor = chunks.cursor();
    while (cursor.next()) {
      if (cursor.kind().isTokenBearing()) {
        long t = r.sendNanos() + cursor.offsetNanos();
        double w = allStated ? cursor.tokens() : even;
        tokens[index(t, width, n)] += w;
        times[c] = t;
        weights[c++] = w;
      }
    }
    return c;
  }

  private static Peak sweepConcurrency(long[] events, long width, int n, double[] mean, int[] max) {
    int current = 0;
    int peak = 0;
    long peakAt = 0;
    int e = 0;
    for (int i = 0; i < n; i++) {
      long start = i * width;
      long end = start + width;
      long position = start;
      double area = 0;
      int highest = current;
      while (e < events.length && (events[e] >> 1) < end) {
        long t = events[e] >> 1;
        area += (double) current * (t - position);
        position = t;
        current += (events[e] & 1) == 1 ? 1 : -1;
        e++;
        highest = Math.max(highest, current);
        if (current > peak) {
          peak = current;
          peakAt = t;
        }
      }
      area += (double) current * (end - position);
      mean[i] = area / width;
      max[i] = highest;
    }
    return new Peak(peak, peakAt);
  }

  /** The largest token sum over windows (t − w, t] ending at an arrival, by a two-pointer sweep. */
  private static Peak sweepTokens(long[] times, double[] weights, int n, long window) {
    if (n == 0) {
      return new Peak(0, 0);
    }
    PairSort.sort(times, weights, n);
    double sum = 0;
    double best = 0;
    long bestAt = 0;
    int tail = 0;
    for (int head = 0; head < n; head++) {
      sum += weights[head];
      while (times[tail] <= times[head] - window) {
        sum -= weights[tail++];
      }
      // Only at the last arrival of an instant does the window hold everything that arrived then.
      if ((head + 1 == n || times[head + 1] != times[head]) && sum > best) {
        best = sum;
        bestAt = times[head];
      }
    }
    return new Peak(best / (window / 1e9), bestAt);
  }

  private static IntervalLatency latency(Doubles values) {
    if (values.size() == 0) {
      return IntervalLatency.NONE;
    }
    // Distribution selects the standard percentiles without sorting: intervals of pooled ITL are large.
    double[] copy = new double[values.size()];
    values.copyInto(copy);
    Distribution d = Distribution.of(copy, QuantileMethod.LINEAR);
    return new IntervalLatency(d.count(), d.p50(), d.p90(), d.p99(), d.max());
  }

  /** The interval length in nanoseconds. */
  public long intervalNanos() {
    return intervalNanos;
  }

  /** The intervals, from the run's origin to the end of its last request; unmodifiable. */
  public List<IntervalStats> intervals() {
    return intervals;
  }

  /** The most requests in flight at any instant, and the first instant it was reached. */
  public Peak peakConcurrency() {
    return peakConcurrency;
  }

  /**
   * The most output tokens per second over any window of one interval's length ending at a chunk
   * arrival, and that window's end; 0 at 0 when no tokens arrived.
   */
  public Peak peakOutputTokensPerSecond() {
    return peakOutputTokensPerSecond;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "TimeSeries[%d intervals of %.3f s, peak %d in flight, peak %.1f output tok/s]",
        intervals.size(), intervalNanos / 1e9, (int) peakConcurrency.value(), peakOutputTokensPerSecond.value());
  }
}
