package io.infermark.core.health;

import java.util.Locale;
import java.util.Objects;

/**
 * The client's error bound beside one latency metric of the run, so the bound can be read against what was
 * measured: the bound in absolute terms and as a share of the metric's p50 and p99.
 *
 * <p>The bound is the run's measurement floor ({@link ClientHealth#floorNanos()}: a delay the client added to some
 * timestamps at least 1 % of the time) for the metrics that are one timestamp difference (TTFT, ITL, E2E); for
 * TPOT, which spreads the difference of two timestamps over N − 1 gaps, it is the floor ÷ (median N − 1). A
 * metric's p50 is then known to within about the bound; a share of 1 % means the client's noise is a hundredth of
 * what it measured, a share of 50 % that it is as large as half of it.
 *
 * @param metric the metric's name: {@code TTFT}, {@code TPOT}, {@code ITL} or {@code E2E}
 * @param samples the values the percentiles rest on
 * @param p50Nanos the metric's median over the run's successful measured requests (within 1 %: from a histogram)
 * @param p99Nanos its 99th percentile
 * @param boundNanos the client's error bound on it
 * @param judged whether the verdict weighs this metric (TTFT, TPOT and E2E; ITL is shown, see {@link ClientHealth})
 */
public record MetricBound(String metric, int samples, long p50Nanos, long p99Nanos, long boundNanos, boolean judged) {

  /** Validates. */
  public MetricBound {
    Objects.requireNonNull(metric, "metric");
    if (samples < 1 || p50Nanos < 0 || p99Nanos < p50Nanos || boundNanos < 0) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "need samples >= 1, 0 <= p50 <= p99 and "
          + "bound >= 0, were %d, %d, %d, %d", samples, p50Nanos, p99Nanos, boundNanos));
    }
  }

  /** The bound as a share of the metric's p50 (0.01 is 1 %); infinite for a p50 of 0 with a bound above 0. */
  public double shareOfP50() {
    return share(p50Nanos);
  }

  /** The bound as a share of the metric's p99. */
  public double shareOfP99() {
    return share(p99Nanos);
  }

  private double share(long of) {
    if (boundNanos == 0) {
      return 0;
    }
    return of == 0 ? Double.POSITIVE_INFINITY : (double) boundNanos / of;
  }

  /** {@code "TTFT: bound 8.00 ms = 1.1 % of p50 750 ms, 1.0 % of p99 790 ms"}. */
  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s: bound %s ms = %s of p50 %s ms, %s of p99 %s ms", metric,
        ClientHealth.millis(boundNanos), percent(shareOfP50()), ClientHealth.millis(p50Nanos),
        percent(shareOfP99()), ClientHealth.millis(p99Nanos));
  }

  /** A share as a percentage with as many decimals as make sense: 0.12 %, 1.2 %, 12 %. */
  static String percent(double share) {
    if (Double.isInfinite(share)) {
      return "all";
    }
    double p = share * 100;
    return (p < 1 ? String.format(Locale.ROOT, "%.2f", p) : p < 10 ? String.format(Locale.ROOT, "%.1f", p)
        : String.format(Locale.ROOT, "%.0f", p)) + " %";
  }
}
