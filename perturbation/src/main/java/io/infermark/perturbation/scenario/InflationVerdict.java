package io.infermark.perturbation.scenario;

import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The outcome of a {@link ContextInflationKit} run.
 *
 * @param pass true when no step degraded or failed
 * @param degradedAt the context length (tokens) of the first step that degraded, if any
 * @param failedAt the context length of the first step whose failure rate exceeded the limit, if any
 * @param steps every step's numbers, in growing context order
 */
public record InflationVerdict(boolean pass, OptionalInt degradedAt, OptionalInt failedAt, List<Step> steps) {

  /**
   * One context length's numbers.
   *
   * @param contextTokens the context length asked for
   * @param requests measured requests at this length
   * @param failed of which failed
   * @param ttftP50Ms median TTFT of the successful ones, milliseconds
   * @param e2eP50Ms median E2E of the successful ones, milliseconds
   * @param degraded true when a latency limit was exceeded
   * @param failing true when the failure rate exceeded its limit
   */
  public record Step(int contextTokens, int requests, int failed, OptionalDouble ttftP50Ms, OptionalDouble e2eP50Ms,
      boolean degraded, boolean failing) {}

  /** Copies. */
  public InflationVerdict {
    steps = List.copyOf(steps);
  }

  /** A text table of the steps. */
  public String table() {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%8s %8s %6s %9s %9s %s%n", "tokens", "requests",
        "failed", "ttft p50", "e2e p50", "state"));
    for (Step st : steps) {
      s.append(String.format(Locale.ROOT, "%8d %8d %6d %9s %9s %s%n", st.contextTokens(), st.requests(), st.failed(),
          st.ttftP50Ms().isPresent() ? String.format(Locale.ROOT, "%.2f", st.ttftP50Ms().getAsDouble()) : "-",
          st.e2eP50Ms().isPresent() ? String.format(Locale.ROOT, "%.2f", st.e2eP50Ms().getAsDouble()) : "-",
          st.failing() ? "FAILING" : st.degraded() ? "DEGRADED" : "ok"));
    }
    return s.toString();
  }

  @Override
  public String toString() {
    return "InflationVerdict[" + (pass ? "PASS" : "FAIL") + ", " + steps.size() + " steps"
        + (degradedAt.isPresent() ? ", degraded at " + degradedAt.getAsInt() + " tokens" : "")
        + (failedAt.isPresent() ? ", failed at " + failedAt.getAsInt() + " tokens" : "") + "]";
  }
}
