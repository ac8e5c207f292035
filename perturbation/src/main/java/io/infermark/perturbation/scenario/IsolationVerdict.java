package io.infermark.perturbation.scenario;

import java.util.List;

/**
 * The outcome of a {@link TenantIsolationKit} run.
 *
 * @param pass true when no response contained another tenant's canary
 * @param leaks every cross-tenant leak, with the request ids
 * @param judged successful responses checked
 * @param failedRequests requests that failed and so were not judged
 */
public record IsolationVerdict(boolean pass, List<Leak> leaks, int judged, int failedRequests) {

  /** Copies. */
  public IsolationVerdict {
    leaks = List.copyOf(leaks);
  }

  @Override
  public String toString() {
    return "IsolationVerdict[" + (pass ? "PASS" : "FAIL") + ": " + leaks.size() + " leaks in " + judged
        + " responses, " + failedRequests + " failed]";
  }
}
