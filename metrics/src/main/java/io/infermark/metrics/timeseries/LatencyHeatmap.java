package io.infermark.metrics.timeseries;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How one latency metric's values spread over time: counts in a grid of time buckets (equal
 * intervals from the run's origin) × latency buckets (equal steps of log10, {@code bucketsPerDecade}
 * per factor of ten). Values are placed in time as {@link TimeSeries} places them (TTFT at the first
 * token, ITL at the chunk ending the gap, E2E and others at the last token); successful measured
 * requests only.
 *
 * <p>Latency bucket j covers {@code [lowestMillis·10^(j/b), lowestMillis·10^((j+1)/b))} where
 * {@code lowestMillis} is the power of ten at or below the smallest positive value. Values ≤ 0 go
 * into bucket 0.
 */
public final class LatencyHeatmap {

  private final LatencyMetric metric;
  private final long intervalNanos;
  private final double lowestMillis;
  private final int bucketsPerDecade;
  private final int[][] counts;
  private final int total;

  private LatencyHeatmap(LatencyMetric metric, long intervalNanos, double lowestMillis, int bucketsPerDecade,
      int[][] counts, int total) {
    this.metric = metric;
    this.intervalNanos = intervalNanos;
    this.lowestMillis = lowestMillis;
    this.bucketsPerDecade = bucketsPerDecade;
    this.counts = counts;
    this.total = total;
  }

  /** The heatmap of a run's metric in 1 s time buckets and 10 latency buckets per decade. */
  public static LatencyHeatmap of(RunResult run, LatencyMetric metric) {
    return of(run.records(), metric, TimeSeries.DEFAULT_INTERVAL, 10);
  }

  /**
   * The heatmap of records' metric.
   *
   * @throws IllegalArgumentException if the interval is not positive, bucketsPerDecade is outside
   *     [1, 100], or the grid would exceed {@value TimeSeries#MAX_INTERVALS} time buckets
   */
  public static LatencyHeatmap of(List<RequestRecord> records, LatencyMetric metric, Duration interval,
      int bucketsPerDecade) {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(metric, "metric");
    long width = interval.toNanos();
    if (width <= 0) {
      throw new IllegalArgumentException("interval must be positive, was " + interval);
    }
    if (bucketsPerDecade < 1 || bucketsPerDecade > 100) {
      throw new IllegalArgumentException("bucketsPerDecade must be in [1, 100], was " + bucketsPerDecade);
    }
    Doubles values = new Doubles();
    Doubles times = new Doubles();
    for (RequestRecord r : records) {
      if (r.measured() && r.succeeded()) {
        TimedValues.collect(metric, r, (t, v) -> {
          times.add(t);
          values.add(v);
        });
      }
    }
    double minPositive = Double.POSITIVE_INFINITY;
    double max = 0;
    double[] v = new double[values.size()];
    double[] at = new double[values.size()];
    values.copyInto(v);
    times.copyInto(at);
    for (double x : v) {
      if (x > 0) {
        minPositive = Math.min(minPositive, x);
      }
      max = Math.max(max, x);
    }
    double lowest = minPositive == Double.POSITIVE_INFINITY ? 1 : Math.pow(10, Math.floor(Math.log10(minPositive)));
    int latencyBuckets = Math.max(1, bucketOf(max, lowest, bucketsPerDecade) + 1);
    long horizon = at.length == 0 ? 0 : (long) times.max();
    long timeBuckets = horizon / width + 1;
    if (timeBuckets > TimeSeries.MAX_INTERVALS) {
      throw new IllegalArgumentException("interval " + interval + " makes " + timeBuckets + " time buckets, more than "
          + TimeSeries.MAX_INTERVALS);
    }
    int[][] counts = new int[(int) timeBuckets][latencyBuckets];
    for (int i = 0; i < v.length; i++) {
      counts[(int) ((long) at[i] / width)][bucketOf(v[i], lowest, bucketsPerDecade)]++;
    }
    return new LatencyHeatmap(metric, width, lowest, bucketsPerDecade, counts, v.length);
  }

  private static int bucketOf(double millis, double lowest, int perDecade) {
    if (!(millis > lowest)) {
      return 0;
    }
    // A hair of slack so that exact powers of ten (10^(j/b) computed in floating point) land in their own bucket.
    return (int) Math.floor(Math.log10(millis / lowest) * perDecade + 1e-9);
  }

  /** The metric mapped. */
  public LatencyMetric metric() {
    return metric;
  }

  /** The time bucket length in nanoseconds. */
  public long intervalNanos() {
    return intervalNanos;
  }

  /** Number of time buckets (rows). */
  public int timeBuckets() {
    return counts.length;
  }

  /** Number of latency buckets (columns). */
  public int latencyBuckets() {
    return counts.length == 0 ? 0 : counts[0].length;
  }

  /** Latency buckets per factor of ten. */
  public int bucketsPerDecade() {
    return bucketsPerDecade;
  }

  /** The lower edge of latency bucket j in ms. */
  public double lowerEdgeMillis(int j) {
    return lowestMillis * Math.pow(10, (double) j / bucketsPerDecade);
  }

  /** Values in time bucket {@code i} and latency bucket {@code j}. */
  public int count(int i, int j) {
    return counts[i][j];
  }

  /** The largest cell count, for scaling colours. */
  public int maxCount() {
    int m = 0;
    for (int[] row : counts) {
      for (int x : row) {
        m = Math.max(m, x);
      }
    }
    return m;
  }

  /** All values placed. */
  public int total() {
    return total;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "LatencyHeatmap[%s, %d values, %d x %d buckets from %.3g ms, %d per decade]",
        metric, total, timeBuckets(), latencyBuckets(), lowestMillis, bucketsPerDecade);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LatencyHeatmap h && h.metric == metric && h.intervalNanos == intervalNanos
        && h.bucketsPerDecade == bucketsPerDecade && h.lowestMillis == lowestMillis && Arrays.deepEquals(h.counts,
        counts);
  }

  @Override
  public int hashCode() {
    return Arrays.deepHashCode(counts) * 31 + metric.hashCode();
  }
}
