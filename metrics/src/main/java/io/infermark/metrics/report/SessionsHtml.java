package io.infermark.metrics.report;

import io.infermark.metrics.Distribution;
import io.infermark.metrics.session.SessionSummary;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/** The HTML report's Sessions section (only for a session workload's run); every text is escaped. */
final class SessionsHtml {

  private SessionsHtml() {}

  static void section(StringBuilder b, SessionSummary s) {
    if (s.isEmpty()) {
      return;
    }
    Map<SessionSummary.Outcome, Integer> o = s.outcomes();
    b.append("<h2>Sessions</h2><p class='meta'>").append(Html.escape(String.format(Locale.ROOT,
        "%d sessions: %d completed, %d failed, %d cut by the run's end. tool_chain_completion_rate %s.",
        s.sessions(), o.get(SessionSummary.Outcome.COMPLETED), o.get(SessionSummary.Outcome.FAILED),
        o.get(SessionSummary.Outcome.CUT), percent(s.toolChainCompletionRate())))).append("</p>");
    b.append("<table><thead><tr><th>metric</th><th>n</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>"
        + "</thead><tbody>");
    row(b, "session e2e (ms)", s.sessionMillis());
    row(b, "turns per session", s.turnsPerSession());
    for (SessionSummary.TurnLatency t : s.turnLatency()) {
      row(b, String.format(Locale.ROOT, "agent_turn_latency_ms{tool_call_depth=%d, retry_count=%d}", t.toolCallDepth(),
          t.retryCount()), t.latencyMillis());
    }
    row(b, "retry convergence cycles", s.retries().cycles());
    for (SessionSummary.ContextPoint p : s.ttftByTurn()) {
      row(b, String.format(Locale.ROOT, "TTFT turn %d (%.0f context tokens, ms)", p.turn(), p.meanContextTokens()),
          p.ttftMillis());
    }
    b.append("</tbody></table>");
    double total = s.modelMillis() + s.toolMillis() + s.otherMillis();
    SessionSummary.Fidelity f = s.fidelity();
    b.append("<p class='meta'>").append(Html.escape(String.format(Locale.ROOT,
        "Time: model %.1f%%, tools %.1f%%, think/backoff/other %.1f%%. Retries: %d calls retried, %d converged, %d"
            + " exhausted. TTFT slope %s ms per 1k context tokens. Memory decay %s (%d probes); context truncation"
            + " %s (%d truncated of %d checked, %d context-length errors).",
        total > 0 ? 100 * s.modelMillis() / total : 0, total > 0 ? 100 * s.toolMillis() / total : 0,
        total > 0 ? 100 * s.otherMillis() / total : 0, s.retries().retriedCalls(), s.retries().converged(),
        s.retries().exhausted(), num(s.ttftMillisPerThousandContextTokens()), percent(f.memoryDecayRate()),
        f.probes(), percent(f.contextTruncationRate()), f.truncatedCalls(), f.checkedCalls(),
        f.contextLengthErrors()))).append("</p>");
  }

  private static void row(StringBuilder b, String label, Distribution d) {
    b.append("<tr><td>").append(Html.escape(label)).append("</td><td>").append(d.count()).append("</td><td>")
        .append(num(d.p50())).append("</td><td>").append(num(d.p90())).append("</td><td>").append(num(d.p99()))
        .append("</td><td>").append(num(d.max())).append("</td></tr>");
  }

  private static String num(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.2f", v.getAsDouble()) : "–";
  }

  private static String percent(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.2f%%", 100 * v.getAsDouble()) : "–";
  }
}
