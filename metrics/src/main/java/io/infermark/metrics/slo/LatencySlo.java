package io.infermark.metrics.slo;

import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import java.util.Locale;
import java.util.Objects;

/**
 * A latency objective: {@code metric}'s {@code p}-quantile over the run's successful measured
 * requests must be at most {@code thresholdMillis}.
 *
 * <p>Per request (for goodput), the request's own value must be at most the threshold, as vLLM's
 * {@code --goodput ttft:200 tpot:50} checks each request: for ITL every gap of the request
 * (its largest gap) must be; a metric that is undefined for a request because it produced too few
 * chunks for it (TPOT or ITL with fewer than two token-bearing chunks, TTFC without a content chunk)
 * is not held against it. A request without any token-bearing chunk misses every latency objective.
 *
 * @param metric which latency
 * @param p the quantile, in (0, 1]: 0.99 for P99, 1 for the maximum
 * @param thresholdMillis the largest acceptable value, in ms
 */
public record LatencySlo(LatencyMetric metric, double p, double thresholdMillis) implements Slo {

  /** Validates. */
  public LatencySlo {
    Objects.requireNonNull(metric, "metric");
    if (!(p > 0 && p <= 1)) {
      throw new IllegalArgumentException("p must be in (0, 1] (0.99 for P99), was " + p);
    }
    if (!(thresholdMillis >= 0) || Double.isInfinite(thresholdMillis)) {
      throw new IllegalArgumentException("thresholdMillis must be finite and >= 0, was " + thresholdMillis);
    }
  }

  @Override
  public String name() {
    return String.format(Locale.ROOT, "%s p%s <= %s ms", metric.name(), trim(p * 100), trim(thresholdMillis));
  }

  @Override
  public boolean perRequest() {
    return true;
  }

  /** Whether one successful request meets this objective (see the class description). */
  public boolean metBy(RequestRecord r) {
    if (r.chunks().tokenChunkCount() == 0) {
      return false;
    }
    for (double v : metric.valuesMillis(r)) {
      if (v > thresholdMillis) {
        return false;
      }
    }
    return true;
  }

  static String trim(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
        : String.format(Locale.ROOT, "%.6g", v).replaceAll("0+$", "").replaceAll("\\.$", "");
  }

  @Override
  public String toString() {
    return "LatencySlo[" + name() + "]";
  }
}
