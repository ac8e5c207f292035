package io.infermark.perturbation.scenario;

import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * The outcome of a {@link ColdStartKit} measurement. Times in milliseconds.
 *
 * @param pass true when every limit held
 * @param timeToReadyMs from the load's start (as the caller marked it) to the first healthy answer,
 *     if readiness was measured
 * @param coldTtftMs the slowest cold request's TTFT (the first requests after a start or a scale to zero)
 * @param warmTtftP50Ms the median TTFT of the warm requests
 * @param coldPenaltyMs cold TTFT minus warm median TTFT: what loading cost the first request
 * @param coldRequests cold requests that succeeded
 * @param warmRequests warm requests that succeeded
 * @param reasons each limit that failed, in words; empty on a pass
 */
public record ColdStartVerdict(boolean pass, OptionalDouble timeToReadyMs, double coldTtftMs, double warmTtftP50Ms,
    double coldPenaltyMs, int coldRequests, int warmRequests, List<String> reasons) {

  /** Copies. */
  public ColdStartVerdict {
    reasons = List.copyOf(reasons);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ColdStartVerdict[%s, ready %s, cold TTFT %.1f ms, warm TTFT p50 %.1f ms, "
        + "penalty %.1f ms (%d cold, %d warm)%s]", pass ? "PASS" : "FAIL",
        timeToReadyMs.isPresent() ? String.format(Locale.ROOT, "%.1f ms", timeToReadyMs.getAsDouble()) : "unmeasured",
        coldTtftMs, warmTtftP50Ms, coldPenaltyMs, coldRequests, warmRequests,
        reasons.isEmpty() ? "" : ", " + String.join("; ", reasons));
  }
}
