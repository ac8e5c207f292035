package io.infermark.metrics.report;

import static io.infermark.metrics.report.JsonFields.number;

import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.session.SessionSummary;
import java.io.IOException;
import java.util.Map;

/**
 * The {@code sessions} object of the infermark JSON (only for a session workload's run): outcomes,
 * {@code tool_chain_completion_rate}, session e2e and turns, {@code agent_turn_latency_ms} by
 * {@code tool_call_depth} and {@code retry_count}, retry convergence, time in tools and the model, TTFT by
 * turn against context length, and fidelity. Times in ms, rates in [0, 1].
 */
final class SessionsJson {

  private SessionsJson() {}

  static void write(JsonGenerator g, SessionSummary s) throws IOException {
    if (s.isEmpty()) {
      return;
    }
    g.writeObjectFieldStart("sessions");
    g.writeNumberField("sessions", s.sessions());
    for (Map.Entry<SessionSummary.Outcome, Integer> e : s.outcomes().entrySet()) {
      g.writeNumberField(e.getKey().name().toLowerCase(java.util.Locale.ROOT), e.getValue());
    }
    number(g, "tool_chain_completion_rate", s.toolChainCompletionRate());
    distribution(g, "session_e2e_ms", s.sessionMillis());
    distribution(g, "turns_per_session", s.turnsPerSession());
    g.writeArrayFieldStart("agent_turn_latency_ms");
    for (SessionSummary.TurnLatency t : s.turnLatency()) {
      g.writeStartObject();
      g.writeNumberField("tool_call_depth", t.toolCallDepth());
      g.writeNumberField("retry_count", t.retryCount());
      fields(g, t.latencyMillis());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeObjectFieldStart("retry_convergence");
    g.writeNumberField("retried_calls", s.retries().retriedCalls());
    g.writeNumberField("converged", s.retries().converged());
    g.writeNumberField("exhausted", s.retries().exhausted());
    distribution(g, "cycles", s.retries().cycles());
    g.writeEndObject();
    g.writeObjectFieldStart("time_ms");
    g.writeNumberField("model", s.modelMillis());
    g.writeNumberField("tools", s.toolMillis());
    g.writeNumberField("other", s.otherMillis());
    g.writeEndObject();
    g.writeArrayFieldStart("ttft_by_turn");
    for (SessionSummary.ContextPoint p : s.ttftByTurn()) {
      g.writeStartObject();
      g.writeNumberField("turn", p.turn());
      g.writeNumberField("calls", p.calls());
      g.writeNumberField("mean_context_tokens", p.meanContextTokens());
      distribution(g, "ttft_ms", p.ttftMillis());
      g.writeEndObject();
    }
    g.writeEndArray();
    number(g, "ttft_ms_per_1k_context_tokens", s.ttftMillisPerThousandContextTokens());
    SessionSummary.Fidelity f = s.fidelity();
    g.writeObjectFieldStart("fidelity");
    g.writeNumberField("probes", f.probes());
    g.writeNumberField("recalled", f.recalled());
    number(g, "memory_decay_rate", f.memoryDecayRate());
    g.writeObjectFieldStart("recall_by_turn");
    for (Map.Entry<Integer, Double> e : f.recallByTurn().entrySet()) {
      g.writeNumberField(Integer.toString(e.getKey()), e.getValue());
    }
    g.writeEndObject();
    g.writeNumberField("checked_calls", f.checkedCalls());
    g.writeNumberField("truncated_calls", f.truncatedCalls());
    g.writeNumberField("context_length_errors", f.contextLengthErrors());
    number(g, "context_truncation_rate", f.contextTruncationRate());
    g.writeEndObject();
    g.writeEndObject();
  }

  private static void distribution(JsonGenerator g, String name, Distribution d) throws IOException {
    g.writeObjectFieldStart(name);
    fields(g, d);
    g.writeEndObject();
  }

  private static void fields(JsonGenerator g, Distribution d) throws IOException {
    g.writeNumberField("count", d.count());
    number(g, "mean", d.mean());
    number(g, "p50", d.p50());
    number(g, "p90", d.p90());
    number(g, "p99", d.p99());
    number(g, "max", d.max());
  }
}
