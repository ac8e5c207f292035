package io.infermark.metrics.slo;

import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import java.util.function.Predicate;

/**
 * One service-level objective a run is checked against. Create them with the static factories;
 * group them in an {@link SloSet} (or take a preset from {@link SloPresets}) and evaluate the set
 * against a run to get a verdict per objective and the run's goodput.
 *
 * <p>Two kinds: <em>per-request</em> objectives ({@link LatencySlo}, {@link ValiditySlo}) can be
 * checked on each request and decide goodput; <em>run-level</em> ones ({@link ErrorRateSlo},
 * {@link CompletionRateSlo}, {@link ThroughputSlo}) only have a verdict for the whole run.
 */
public sealed interface Slo permits LatencySlo, ErrorRateSlo, CompletionRateSlo, ValiditySlo, ThroughputSlo {

  /** A short description, e.g. {@code TTFT p99 <= 200 ms}. */
  String name();

  /** True when the objective can be checked on a single request and so counts for goodput. */
  boolean perRequest();

  /**
   * {@code metric}'s {@code p}-quantile must be at most {@code thresholdMillis}; per request, the
   * request's own value must be (every gap, for ITL).
   *
   * @param p in (0, 1]: 0.99 for P99
   */
  static LatencySlo latency(LatencyMetric metric, double p, double thresholdMillis) {
    return new LatencySlo(metric, p, thresholdMillis);
  }

  /** At most {@code maxFraction} of the measured requests may fail (0.01 for 1 %). */
  static ErrorRateSlo errorRate(double maxFraction) {
    return new ErrorRateSlo(maxFraction);
  }

  /** At least {@code minFraction} of the measured requests must complete successfully (0.992 for 99.2 %). */
  static CompletionRateSlo completionRate(double minFraction) {
    return new CompletionRateSlo(minFraction);
  }

  /**
   * Every successful request must satisfy the caller's check of its response (a JSON schema, a
   * tool call's arguments, an expected answer); per request, an invalid response is a miss.
   */
  static ValiditySlo validity(String name, Predicate<RequestRecord> valid) {
    return new ValiditySlo(name, valid, 1.0);
  }

  /** At least {@code minValidFraction} of the successful requests must pass the check. */
  static ValiditySlo validity(String name, Predicate<RequestRecord> valid, double minValidFraction) {
    return new ValiditySlo(name, valid, minValidFraction);
  }

  /** Output tokens per second of the measurement window, divided by {@code gpus}, must be at least the given rate. */
  static ThroughputSlo outputTokensPerSecondPerGpu(double minTokensPerSecond, int gpus) {
    return new ThroughputSlo(minTokensPerSecond, gpus);
  }
}
