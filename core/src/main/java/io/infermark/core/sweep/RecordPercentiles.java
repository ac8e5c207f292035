package io.infermark.core.sweep;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Percentiles of a per-request value over a run's measured, successful records: a core-only way to
 * express sweep summaries and capacity SLOs (the {@code metrics} module has the full definitions).
 * A per-request function returns {@link Double#NaN} for a request it has no value for; such
 * requests are left out.
 *
 * <pre>{@code
 * ToDoubleFunction<RunResult> p95e2e = RecordPercentiles.of(RecordPercentiles::e2eSeconds, 0.95);
 * }</pre>
 */
public final class RecordPercentiles {

  private RecordPercentiles() {}

  /**
   * The {@code p}-quantile (linear interpolation, numpy's default) of {@code value} over the measured
   * successful records; NaN when none has a value.
   */
  public static ToDoubleFunction<RunResult> of(ToDoubleFunction<RequestRecord> value, double p) {
    return of(value, p, QuantileMethod.LINEAR);
  }

  /** As {@link #of(ToDoubleFunction, double)} with another quantile method. */
  public static ToDoubleFunction<RunResult> of(ToDoubleFunction<RequestRecord> value, double p,
      QuantileMethod method) {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(method, "method");
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("quantile must be in [0, 1], was " + p);
    }
    return run -> {
      double[] v = run.measured().stream().filter(RequestRecord::succeeded).mapToDouble(value)
          .filter(x -> !Double.isNaN(x)).toArray();
      if (v.length == 0) {
        return Double.NaN;
      }
      Arrays.sort(v);
      return method.quantile(v, p);
    };
  }

  /** E2E in seconds: last token-bearing chunk minus send; NaN without tokens. */
  public static double e2eSeconds(RequestRecord r) {
    return r.chunks().lastTokenOffsetNanos().isPresent() ? r.chunks().lastTokenOffsetNanos().getAsLong() / 1e9
        : Double.NaN;
  }

  /** TTFT in seconds: first token-bearing chunk minus send; NaN without tokens. */
  public static double ttftSeconds(RequestRecord r) {
    return r.chunks().firstTokenOffsetNanos().isPresent() ? r.chunks().firstTokenOffsetNanos().getAsLong() / 1e9
        : Double.NaN;
  }
}
