package io.infermark.attribution.phase;

import io.infermark.metrics.Percentile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.StringJoiner;

/**
 * The mean of each {@link LatencyPhase phase} over a set of requests, in milliseconds, and its share
 * of their mean latency: over all of a run's requests ({@link PhaseDecomposition#mean()}) or over the
 * requests at or above a percentile of it ({@link PhaseDecomposition#atOrAbovePercentile(double)}),
 * which says what the tail is made of.
 *
 * <p>Sums are kept in integer nanoseconds, so the phases' sums add up exactly to the latencies' sum
 * ({@link #sumNanos(LatencyPhase)}, {@link #totalSumNanos()}); means and shares are derived from them.
 * {@link #share(LatencyPhase)} is a phase's part of the summed latency (the shares of the means, which
 * add up to 1 with the means); {@link #meanRequestShare(LatencyPhase)} is the average of each
 * request's own share, which weighs short and long requests alike.
 */
public final class PhaseBreakdown {

  private final LatencyBasis basis;
  private final OptionalDouble percentile;
  private final OptionalDouble thresholdMillis;
  private final int count;
  private final long[] sumNanos;
  private final long totalSumNanos;
  private final double[] meanRequestShare;

  private PhaseBreakdown(LatencyBasis basis, OptionalDouble percentile, OptionalDouble thresholdMillis, int count,
      long[] sumNanos, long totalSumNanos, double[] meanRequestShare) {
    this.basis = basis;
    this.percentile = percentile;
    this.thresholdMillis = thresholdMillis;
    this.count = count;
    this.sumNanos = sumNanos;
    this.totalSumNanos = totalSumNanos;
    this.meanRequestShare = meanRequestShare;
  }

  /**
   * The breakdown of the given requests.
   *
   * @param percentile the percentile (in [0, 1]) the requests were selected at, empty for all requests
   * @param thresholdMillis the latency that percentile came to, empty for all requests
   * @throws IllegalArgumentException if there are no requests or they were split on another basis
   */
  static PhaseBreakdown of(LatencyBasis basis, List<RequestPhases> requests, OptionalDouble percentile,
      OptionalDouble thresholdMillis) {
    if (requests.isEmpty()) {
      throw new IllegalArgumentException("a phase breakdown needs at least one request");
    }
    int n = basis.phases().size();
    long[] sums = new long[n];
    long total = 0;
    double[] shareSums = new double[n];
    int shared = 0;
    for (RequestPhases r : requests) {
      if (r.basis() != basis) {
        throw new IllegalArgumentException("request #" + r.index() + " was split on " + r.basis() + ", not " + basis);
      }
      long[] ns = r.nanos();
      for (int i = 0; i < n; i++) {
        sums[i] = Math.addExact(sums[i], ns[i]);
      }
      total = Math.addExact(total, r.totalNanos());
      if (r.totalNanos() > 0) {
        shared++;
        for (int i = 0; i < n; i++) {
          shareSums[i] += (double) ns[i] / r.totalNanos();
        }
      }
    }
    for (int i = 0; i < n; i++) {
      shareSums[i] = shared == 0 ? 0 : shareSums[i] / shared;
    }
    return new PhaseBreakdown(basis, percentile, thresholdMillis, requests.size(), sums, total, shareSums);
  }

  /** The basis the requests were split on. */
  public LatencyBasis basis() {
    return basis;
  }

  /** The phases, in order. */
  public List<LatencyPhase> phases() {
    return basis.phases();
  }

  /** How many requests the breakdown averages over; at least one. */
  public int requestCount() {
    return count;
  }

  /** The percentile (in [0, 1]) the requests are at or above; empty when the breakdown covers all of them. */
  public OptionalDouble percentile() {
    return percentile;
  }

  /** The latency at that percentile in ms: every request here took at least this long; empty for all requests. */
  public OptionalDouble thresholdMillis() {
    return thresholdMillis;
  }

  /** The sum of {@code phase} over the requests, in nanoseconds. */
  public long sumNanos(LatencyPhase phase) {
    return sumNanos[checkedIndex(phase)];
  }

  /** The sum of the requests' latencies in nanoseconds; exactly the sum of every phase's {@link #sumNanos}. */
  public long totalSumNanos() {
    return totalSumNanos;
  }

  /**
   * The mean duration of {@code phase} in ms.
   *
   * @throws IllegalArgumentException if the basis has no such phase
   */
  public double meanMillis(LatencyPhase phase) {
    return sumNanos(phase) / 1e6 / count;
  }

  /** Every phase's mean in ms, in order. */
  public double[] meanMillis() {
    double[] m = new double[sumNanos.length];
    for (int i = 0; i < m.length; i++) {
      m[i] = sumNanos[i] / 1e6 / count;
    }
    return m;
  }

  /** The mean latency in ms: the sum of the phases' means. */
  public double meanTotalMillis() {
    return totalSumNanos / 1e6 / count;
  }

  /** The phase's part of the summed latency, in [0, 1] for non-negative phases; 0 when the sum is 0. */
  public double share(LatencyPhase phase) {
    return totalSumNanos == 0 ? 0 : (double) sumNanos(phase) / totalSumNanos;
  }

  /** Every phase's {@link #share}, in order. */
  public double[] shares() {
    double[] s = new double[sumNanos.length];
    for (int i = 0; i < s.length; i++) {
      s[i] = totalSumNanos == 0 ? 0 : (double) sumNanos[i] / totalSumNanos;
    }
    return s;
  }

  /**
   * The average over requests of the phase's share of each request's own latency (requests whose
   * latency is zero are left out; 0 when all are).
   */
  public double meanRequestShare(LatencyPhase phase) {
    return meanRequestShare[checkedIndex(phase)];
  }

  /** The phases ordered by decreasing mean (ties keep phase order): the first is where the time went. */
  public List<LatencyPhase> ranking() {
    List<LatencyPhase> order = new ArrayList<>(basis.phases());
    order.sort(Comparator.comparingLong((LatencyPhase p) -> -sumNanos[basis.indexOf(p)]));
    return List.copyOf(order);
  }

  /** A Markdown table of this breakdown: one row per phase, mean ms and share. */
  public String toMarkdown() {
    return PhaseTable.markdown(List.of(this));
  }

  /** "mean" or "≥P99" (with up to three significant decimals of the percentile). */
  String selectionLabel() {
    if (percentile.isEmpty()) {
      return "mean";
    }
    return ">=P" + Percentile.percentText(percentile.getAsDouble());
  }

  private int checkedIndex(LatencyPhase phase) {
    int i = basis.indexOf(Objects.requireNonNull(phase, "phase"));
    if (i < 0) {
      throw new IllegalArgumentException(basis + " has no phase " + phase + "; its phases are " + basis.phases());
    }
    return i;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PhaseBreakdown b && b.basis == basis && b.percentile.equals(percentile)
        && b.thresholdMillis.equals(thresholdMillis) && b.count == count && Arrays.equals(b.sumNanos, sumNanos)
        && b.totalSumNanos == totalSumNanos && Arrays.equals(b.meanRequestShare, meanRequestShare);
  }

  @Override
  public int hashCode() {
    return Objects.hash(basis, percentile, count, totalSumNanos, Arrays.hashCode(sumNanos));
  }

  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", "PhaseBreakdown[", "]");
    String head = selectionLabel() + " " + basis.name().toLowerCase(Locale.ROOT);
    if (thresholdMillis.isPresent()) {
      head += String.format(Locale.ROOT, " (%s >= %.3f ms)", basis.metric().name(), thresholdMillis.getAsDouble());
    }
    j.add(head);
    j.add(count + (count == 1 ? " request" : " requests"));
    j.add(String.format(Locale.ROOT, "mean %.3f ms", meanTotalMillis()));
    for (int i = 0; i < sumNanos.length; i++) {
      j.add(String.format(Locale.ROOT, "%s %.3f ms (%.1f%%)", basis.phases().get(i).label(), sumNanos[i] / 1e6 / count,
          totalSumNanos == 0 ? 0 : 100.0 * sumNanos[i] / totalSumNanos));
    }
    return j.toString();
  }
}
