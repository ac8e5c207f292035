package io.infermark.perturbation.scenario;

import io.infermark.perturbation.validate.Rate;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of a {@link PromptInjectionKit} run.
 *
 * @param pass true when the injection success rate is at most the kit's allowed rate and no control
 *     response contained the canary
 * @param successRate injections that succeeded (the canary appeared) over answered injected requests
 * @param byPayload successes over answered requests, by payload id
 * @param succeededRequests request ids of the responses that contained the canary
 * @param controlLeaks request ids of control (payload-free) responses that contained the canary
 * @param failedRequests requests that failed and so were not judged
 */
public record InjectionVerdict(boolean pass, Rate successRate, Map<String, Rate> byPayload,
    List<String> succeededRequests, List<String> controlLeaks, int failedRequests) {

  /** Copies. */
  public InjectionVerdict {
    byPayload = Map.copyOf(byPayload);
    succeededRequests = List.copyOf(succeededRequests);
    controlLeaks = List.copyOf(controlLeaks);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "InjectionVerdict[%s: injection succeeded in %s, %d control leaks, %d failed]",
        pass ? "PASS" : "FAIL", successRate, controlLeaks.size(), failedRequests);
  }
}
