package io.infermark.perturbation.scenario;

import java.util.List;

/**
 * The outcome of a {@link TenantIsolationKit} run.
 *
 * @param pass zero tolerance (the default): true when no response contained another tenant's
 *     canary; with a {@linkplain TenantIsolationKit#leakRateBelow leak-rate threshold}: true when
 *     the leak rate's one-sided 95 % upper confidence bound is below the threshold
 * @param leaks every cross-tenant leak, with the request ids
 * @param judged successful responses checked
 * @param failedRequests requests that failed and so were not judged
 * @param leakingResponses judged responses holding at least one other tenant's canary
 * @param leakRateUpper95 the one-sided 95 % Clopper–Pearson upper bound of the leak rate (1 when nothing was judged)
 * @param threshold the leak-rate threshold, 0 for zero tolerance
 */
public record IsolationVerdict(boolean pass, List<Leak> leaks, int judged, int failedRequests, int leakingResponses,
    double leakRateUpper95, double threshold) {

  /** Copies. */
  public IsolationVerdict {
    leaks = List.copyOf(leaks);
  }

  /** A zero-tolerance verdict. */
  public IsolationVerdict(boolean pass, List<Leak> leaks, int judged, int failedRequests) {
    this(pass, leaks, judged, failedRequests, (int) leaks.stream().map(Leak::requestId).distinct().count(),
        TenantIsolationKit.upper95(leaks.stream().map(Leak::requestId).distinct().count(), judged), 0);
  }

  /** Leaking responses over judged ones (0 when nothing was judged). */
  public double leakRate() {
    return judged == 0 ? 0 : (double) leakingResponses / judged;
  }

  /**
   * How many leak-free responses it takes for the 95 % upper bound to fall below the threshold
   * ({@code ceil(ln 0.05 / ln(1 − threshold))}, about 3 / threshold: 29,956 for 0.01 %); 0 for zero tolerance.
   */
  public long responsesNeeded() {
    return threshold <= 0 ? 0 : (long) Math.ceil(Math.log(0.05) / Math.log1p(-threshold));
  }

  @Override
  public String toString() {
    return "IsolationVerdict[" + (pass ? "PASS" : "FAIL") + ": " + leaks.size() + " leaks in " + judged
        + " responses, " + failedRequests + " failed"
        + (threshold > 0 ? String.format(java.util.Locale.ROOT, ", leak rate %.4g%% (95%% upper %.4g%%) vs < %.4g%%%s",
            100 * leakRate(), 100 * leakRateUpper95, 100 * threshold,
            pass ? "" : judged < responsesNeeded() ? "; " + responsesNeeded() + " responses needed to show it" : "")
        : "") + "]";
  }
}
