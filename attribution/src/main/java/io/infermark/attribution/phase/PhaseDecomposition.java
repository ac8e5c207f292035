package io.infermark.attribution.phase;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.Distribution;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * A run's requests split into {@link LatencyPhase phases} ({@link RequestPhases}), with the mean
 * split ({@link #mean()}) and the split of its tail ({@link #atOrAbovePercentile(double)}: the mean
 * phases of the requests whose latency is at or above a percentile of it).
 *
 * <pre>{@code
 * PhaseDecomposition phases = PhaseDecomposition.of(run, LatencyBasis.SERVICE_TIME);
 * PhaseBreakdown tail = phases.atOrAbovePercentile(0.99);
 * LatencyPhase culprit = tail.ranking().get(0);          // e.g. WAITING: the server's time to first byte
 * System.out.println(phases.table(0.9, 0.99));
 * }</pre>
 *
 * <p>Like the run's latency statistics, only measured (not warmup or cooldown), successful requests
 * with a token-bearing chunk are split; the others are counted by why they were skipped. The
 * latencies the phases add up to are therefore exactly the values the metrics module reports for
 * {@link LatencyBasis#metric()}, and {@link #totals()} is that metric's distribution.
 */
public final class PhaseDecomposition {

  private final LatencyBasis basis;
  private final QuantileMethod method;
  private final List<RequestPhases> requests;
  private final Distribution totals;
  private final int skippedUnmeasured;
  private final int skippedFailed;
  private final int skippedWithoutTokens;
  private final PhaseBreakdown mean;

  private PhaseDecomposition(LatencyBasis basis, QuantileMethod method, List<RequestPhases> requests,
      int skippedUnmeasured, int skippedFailed, int skippedWithoutTokens) {
    this.basis = basis;
    this.method = method;
    this.requests = requests;
    double[] ms = new double[requests.size()];
    for (int i = 0; i < ms.length; i++) {
      ms[i] = requests.get(i).totalMillis();
    }
    this.totals = Distribution.of(ms, method);
    this.skippedUnmeasured = skippedUnmeasured;
    this.skippedFailed = skippedFailed;
    this.skippedWithoutTokens = skippedWithoutTokens;
    this.mean = PhaseBreakdown.of(basis, requests, OptionalDouble.empty(), OptionalDouble.empty());
  }

  /**
   * Splits a run's measured, successful requests on the given basis, with linear percentiles.
   *
   * @throws IllegalArgumentException if no request can be split
   * @throws IllegalStateException if the run did not retain its records
   */
  public static PhaseDecomposition of(RunResult run, LatencyBasis basis) {
    return of(run.records(), basis, QuantileMethod.LINEAR);
  }

  /**
   * Splits the measured, successful requests among {@code records} on the given basis, with linear
   * percentiles.
   *
   * @throws IllegalArgumentException if no request can be split
   */
  public static PhaseDecomposition of(List<RequestRecord> records, LatencyBasis basis) {
    return of(records, basis, QuantileMethod.LINEAR);
  }

  /**
   * Splits the measured, successful requests among {@code records} on the given basis; percentiles
   * of the latency are computed by {@code method}.
   *
   * @throws IllegalArgumentException if no request can be split
   */
  public static PhaseDecomposition of(List<RequestRecord> records, LatencyBasis basis, QuantileMethod method) {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(basis, "basis");
    Objects.requireNonNull(method, "method");
    List<RequestPhases> split = new ArrayList<>(records.size());
    int unmeasured = 0;
    int failed = 0;
    int noTokens = 0;
    for (RequestRecord r : records) {
      if (!r.measured()) {
        unmeasured++;
      } else if (!r.succeeded()) {
        failed++;
      } else if (r.chunks().tokenChunkCount() == 0) {
        noTokens++;
      } else {
        split.add(RequestPhases.of(r, basis));
      }
    }
    if (split.isEmpty()) {
      throw new IllegalArgumentException("no request to split into phases among " + records.size() + " records: "
          + unmeasured + " warmup or cooldown, " + failed + " failed, " + noTokens + " without a token-bearing chunk");
    }
    return new PhaseDecomposition(basis, method, List.copyOf(split), unmeasured, failed, noTokens);
  }

  /** The basis the requests were split on. */
  public LatencyBasis basis() {
    return basis;
  }

  /** How percentiles of the latency are computed. */
  public QuantileMethod quantileMethod() {
    return method;
  }

  /** Every split request, in record order. */
  public List<RequestPhases> requests() {
    return requests;
  }

  /** The latencies the phases add up to, in ms: the distribution of {@link LatencyBasis#metric()}. */
  public Distribution totals() {
    return totals;
  }

  /** Records skipped as warmup or cooldown. */
  public int skippedUnmeasured() {
    return skippedUnmeasured;
  }

  /** Measured records skipped because the request failed. */
  public int skippedFailed() {
    return skippedFailed;
  }

  /** Measured, successful records skipped because they carried no token-bearing chunk (no E2E). */
  public int skippedWithoutTokens() {
    return skippedWithoutTokens;
  }

  /** The mean split over every request. */
  public PhaseBreakdown mean() {
    return mean;
  }

  /**
   * The mean split over the requests whose latency is at or above its {@code p}-quantile (computed by
   * {@link #quantileMethod()}): the tail's make-up. {@code atOrAbovePercentile(0)} is {@link #mean()};
   * {@code atOrAbovePercentile(1)} is the slowest request(s).
   *
   * @param p in [0, 1]: 0.99 for P99
   * @throws IllegalArgumentException if {@code p} is outside [0, 1]
   */
  public PhaseBreakdown atOrAbovePercentile(double p) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("percentile p must be in [0, 1] (0.99 for P99), was " + p);
    }
    double threshold = totals.percentile(p).getAsDouble();
    List<RequestPhases> tail = new ArrayList<>();
    for (RequestPhases r : requests) {
      if (r.totalMillis() >= threshold) {
        tail.add(r);
      }
    }
    return PhaseBreakdown.of(basis, tail, OptionalDouble.of(p), OptionalDouble.of(threshold));
  }

  /**
   * A Markdown table with the mean split and the split at or above each given percentile.
   *
   * @throws IllegalArgumentException if a percentile is outside [0, 1]
   */
  public String table(double... percentiles) {
    List<PhaseBreakdown> columns = new ArrayList<>();
    columns.add(mean);
    for (double p : percentiles) {
      columns.add(atOrAbovePercentile(p));
    }
    return PhaseTable.markdown(columns);
  }

  @Override
  public String toString() {
    int skipped = skippedUnmeasured + skippedFailed + skippedWithoutTokens;
    return String.format(Locale.ROOT, "PhaseDecomposition[%s, %d requests (%d skipped), mean %.3f ms, top %s]",
        basis.name().toLowerCase(Locale.ROOT), requests.size(), skipped, mean.meanTotalMillis(),
        mean.ranking().get(0).label());
  }
}
