package io.infermark.metrics;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * Latency divided by how much a request generated, so that runs with different output lengths can
 * be compared. Both forms divide a request's {@link LatencyMetric#E2E E2E} (send to last
 * token-bearing chunk, in ms) by a function of its output length {@code L = N}
 * ({@link RequestRecord#outputTokens()}, the server's count when it sent one):
 * <ul>
 *   <li><b>per-token latency</b> {@code = E2E / L}: the vLLM paper's "normalized latency", the same
 *       value as {@link LatencyMetric#NTPOT}. It punishes short answers, whose TTFT is spread over
 *       few tokens;
 *   <li><b>effective-length latency</b> {@code = E2E / L_eff} with {@code L_eff = min(L, τ·√L)}
 *       and τ = {@value #DEFAULT_TAU} by default: lengths up to τ² (4 tokens) count in full, longer
 *       ones only as their square root, so one long answer does not make a slow server look fast.
 * </ul>
 * A request counts when it succeeded, is not warmup, has a token-bearing chunk and L ≥ 1; others
 * contribute nothing.
 */
public final class LengthNormalizedLatency {

  /** The default τ of {@code L_eff = min(L, τ·√L)}. */
  public static final double DEFAULT_TAU = 2.0;

  private LengthNormalizedLatency() {}

  /**
   * {@code min(L, τ·√L)}.
   *
   * @throws IllegalArgumentException if length &lt; 1 or tau is not positive and finite
   */
  public static double effectiveLength(long length, double tau) {
    if (length < 1) {
      throw new IllegalArgumentException("length must be >= 1 token, was " + length);
    }
    checkTau(tau);
    return Math.min(length, tau * Math.sqrt(length));
  }

  /** A request's per-token latency {@code E2E / N} in ms, when it counts (see the class description). */
  public static OptionalDouble perTokenMillis(RequestRecord r) {
    return counts(r) ? OptionalDouble.of(e2eMillis(r) / r.outputTokens()) : OptionalDouble.empty();
  }

  /** A request's effective-length latency {@code E2E / min(N, τ·√N)} in ms, when it counts. */
  public static OptionalDouble effectiveLengthMillis(RequestRecord r, double tau) {
    checkTau(tau);
    return counts(r) ? OptionalDouble.of(e2eMillis(r) / effectiveLength(r.outputTokens(), tau))
        : OptionalDouble.empty();
  }

  /** The distribution of per-token latency over a run's counted requests, linear percentiles. */
  public static Distribution perToken(RunResult run) {
    Objects.requireNonNull(run, "run");
    DoubleArray out = new DoubleArray(run.records().size());
    for (RequestRecord r : run.records()) {
      perTokenMillis(r).ifPresent(out::add);
    }
    return Distribution.ofOwned(out.release(), QuantileMethod.LINEAR);
  }

  /** The distribution of effective-length latency with τ = {@value #DEFAULT_TAU}. */
  public static Distribution effectiveLength(RunResult run) {
    return effectiveLength(run, DEFAULT_TAU);
  }

  /** The distribution of effective-length latency with the given τ over a run's counted requests. */
  public static Distribution effectiveLength(RunResult run, double tau) {
    Objects.requireNonNull(run, "run");
    checkTau(tau);
    DoubleArray out = new DoubleArray(run.records().size());
    for (RequestRecord r : run.records()) {
      effectiveLengthMillis(r, tau).ifPresent(out::add);
    }
    return Distribution.ofOwned(out.release(), QuantileMethod.LINEAR);
  }

  private static boolean counts(RequestRecord r) {
    return r.measured() && r.succeeded() && r.outputTokens() >= 1 && r.chunks().tokenChunkCount() > 0;
  }

  private static double e2eMillis(RequestRecord r) {
    return r.chunks().lastTokenOffsetNanos().getAsLong() / 1e6;
  }

  private static void checkTau(double tau) {
    if (!(tau > 0) || Double.isInfinite(tau)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "tau must be positive and finite, was %s", tau));
    }
  }
}
