package io.infermark.metrics.otel;

import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.session.SessionTags;
import io.infermark.metrics.session.FactJudge;
import io.infermark.metrics.session.SessionOutcomes;
import io.infermark.metrics.session.SessionSummary;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleGauge;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.Meter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Exports a session workload's per-session metrics as OpenTelemetry metrics under the seed's names (seed
 * 000 chapter 1): {@value #AGENT_TURN_LATENCY} (histogram, ms, one observation per finished turn, labelled
 * {@code tool_call_depth} and {@code retry_count}), {@value #TOOL_CHAIN_COMPLETION_RATE} (gauge, 1), and
 * beside them {@value #SESSION_DURATION} (histogram, ms), {@value #SESSION_TURNS} (histogram, turns),
 * {@value #RETRY_CONVERGENCE_CYCLES} (histogram, attempts), {@value #SESSION_TIME} (gauge, ms, labelled
 * {@code component} = model, tools or other), {@value #MEMORY_DECAY_RATE} and
 * {@value #CONTEXT_TRUNCATION_RATE} (gauges, 1). A turn's latency is known only once the turn has ended,
 * and a session's outcome once it has; so, as a {@link RunListener}, it keeps the session calls' records
 * and records every instrument when the run finishes. {@link #record(SessionSummary)} exports a summary
 * built some other way (e.g. from a journal). {@link #record(SessionOutcomes)} adds seed 002 §2.5's
 * {@value #FIRST_SCREEN_COMPLETION_RATE} and {@value #SESSION_INTERRUPTION_RATE} (gauges, 1), which need a
 * first-screen limit and a patience the run does not know.
 */
public final class SessionTelemetry implements RunListener {

  /** Histogram of agent turn latency, ms, by {@code tool_call_depth} and {@code retry_count}. */
  public static final String AGENT_TURN_LATENCY = "agent_turn_latency_ms";
  /** Gauge: completed / (completed + failed) sessions. */
  public static final String TOOL_CHAIN_COMPLETION_RATE = "tool_chain_completion_rate";
  /** Histogram of completed sessions' end-to-end time, ms. */
  public static final String SESSION_DURATION = "session_duration_ms";
  /** Histogram of turns finished per completed or failed session. */
  public static final String SESSION_TURNS = "session_turns";
  /** Histogram of attempts a converged retried call took. */
  public static final String RETRY_CONVERGENCE_CYCLES = "retry_convergence_cycles";
  /** Gauge of session time by {@code component}: model, tools, other; ms. */
  public static final String SESSION_TIME = "session_time_ms";
  /** Gauge: share of planted-fact probes whose reply lost the fact. */
  public static final String MEMORY_DECAY_RATE = "memory_decay_rate";
  /** Gauge: share of checked calls whose context the server truncated or refused as too long. */
  public static final String CONTEXT_TRUNCATION_RATE = "context_truncation_rate";

  /** Gauge: sessions whose first turn finished within the first-screen limit, of those judged (seed 002 §2.5). */
  public static final String FIRST_SCREEN_COMPLETION_RATE = "first_screen_completion_rate";
  /** Gauge: sessions a slow turn or a failure interrupted, of those completed or interrupted (seed 002 §2.5). */
  public static final String SESSION_INTERRUPTION_RATE = "session_interruption_rate";

  private static final AttributeKey<Long> DEPTH = AttributeKey.longKey(SessionTags.TOOL_CALL_DEPTH);
  private static final AttributeKey<Long> RETRIES = AttributeKey.longKey(SessionTags.RETRY_COUNT);
  private static final AttributeKey<String> COMPONENT = AttributeKey.stringKey("component");
  private static final AttributeKey<Long> FIRST_SCREEN_MS = AttributeKey.longKey("first_screen_ms");
  private static final AttributeKey<Long> PATIENCE_MS = AttributeKey.longKey("patience_ms");

  private final DoubleHistogram turnLatency;
  private final DoubleGauge completion;
  private final DoubleHistogram sessionDuration;
  private final DoubleHistogram sessionTurns;
  private final DoubleHistogram cycles;
  private final DoubleGauge sessionTime;
  private final DoubleGauge memoryDecay;
  private final DoubleGauge truncation;
  private final DoubleGauge firstScreen;
  private final DoubleGauge interruption;
  private final FactJudge judge;
  private final List<RequestRecord> calls = new ArrayList<>();

  private SessionTelemetry(OpenTelemetry openTelemetry, FactJudge judge) {
    Meter meter = openTelemetry.getMeter(GenAiTelemetry.SCOPE);
    this.judge = judge;
    this.turnLatency = meter.histogramBuilder(AGENT_TURN_LATENCY).setUnit("ms")
        .setDescription("Agent turn latency: first call's intended send to last call's end, tools and retries included.")
        .build();
    this.completion = meter.gaugeBuilder(TOOL_CHAIN_COMPLETION_RATE).setUnit("1")
        .setDescription("Sessions whose every step succeeded, of sessions that completed or failed.").build();
    this.sessionDuration = meter.histogramBuilder(SESSION_DURATION).setUnit("ms")
        .setDescription("End-to-end time of completed sessions.").build();
    this.sessionTurns = meter.histogramBuilder(SESSION_TURNS).setUnit("{turn}")
        .setDescription("Turns finished per completed or failed session.").build();
    this.cycles = meter.histogramBuilder(RETRY_CONVERGENCE_CYCLES).setUnit("{attempt}")
        .setDescription("Attempts a retried call took to succeed.").build();
    this.sessionTime = meter.gaugeBuilder(SESSION_TIME).setUnit("ms")
        .setDescription("Session time spent in the model, in client-side tools, and in the rest.").build();
    this.memoryDecay = meter.gaugeBuilder(MEMORY_DECAY_RATE).setUnit("1")
        .setDescription("Planted-fact probes whose reply lost the fact.").build();
    this.truncation = meter.gaugeBuilder(CONTEXT_TRUNCATION_RATE).setUnit("1")
        .setDescription("Calls whose context the server truncated or refused as too long.").build();
    this.firstScreen = meter.gaugeBuilder(FIRST_SCREEN_COMPLETION_RATE).setUnit("1")
        .setDescription("Sessions whose first turn finished within the first-screen limit.").build();
    this.interruption = meter.gaugeBuilder(SESSION_INTERRUPTION_RATE).setUnit("1")
        .setDescription("Sessions with a turn slower than the user's patience or a call that failed every attempt.")
        .build();
  }

  /** Exports to {@link GlobalOpenTelemetry}, probes judged by {@link FactJudge#containsFact()}. */
  public static SessionTelemetry create() {
    return create(GlobalOpenTelemetry.get(), FactJudge.containsFact());
  }

  /** Exports to {@code openTelemetry}, probes judged by {@code judge}. */
  public static SessionTelemetry create(OpenTelemetry openTelemetry, FactJudge judge) {
    return new SessionTelemetry(Objects.requireNonNull(openTelemetry, "openTelemetry"),
        Objects.requireNonNull(judge, "judge"));
  }

  @Override
  public void onRecord(RequestRecord record) {
    if (SessionSummary.isSessionCall(record)) {
      synchronized (calls) {
        calls.add(record);
      }
    }
  }

  @Override
  public void onRunFinished(RunResult result) {
    List<RequestRecord> copy;
    synchronized (calls) {
      copy = new ArrayList<>(calls);
      calls.clear();
    }
    record(SessionSummary.of(copy, judge));
  }

  /** Records every instrument from {@code summary}; nothing when it holds no session. */
  public void record(SessionSummary summary) {
    if (summary.isEmpty()) {
      return;
    }
    for (SessionSummary.TurnLatency t : summary.turnLatency()) {
      Attributes a = Attributes.of(DEPTH, (long) t.toolCallDepth(), RETRIES, (long) t.retryCount());
      for (double v : t.latencyMillis().sortedValuesMillis()) {
        turnLatency.record(v, a);
      }
    }
    summary.toolChainCompletionRate().ifPresent(completion::set);
    for (double v : summary.sessionMillis().sortedValuesMillis()) {
      sessionDuration.record(v);
    }
    for (double v : summary.turnsPerSession().sortedValuesMillis()) {
      sessionTurns.record(v);
    }
    for (double v : summary.retries().cycles().sortedValuesMillis()) {
      cycles.record(v);
    }
    sessionTime.set(summary.modelMillis(), Attributes.of(COMPONENT, "model"));
    sessionTime.set(summary.toolMillis(), Attributes.of(COMPONENT, "tools"));
    sessionTime.set(summary.otherMillis(), Attributes.of(COMPONENT, "other"));
    summary.fidelity().memoryDecayRate().ifPresent(memoryDecay::set);
    summary.fidelity().contextTruncationRate().ifPresent(truncation::set);
  }

  /**
   * Records {@value #FIRST_SCREEN_COMPLETION_RATE} and {@value #SESSION_INTERRUPTION_RATE}, each labelled with
   * its limit in ms ({@code first_screen_ms}, {@code patience_ms}); nothing for a rate without sessions.
   */
  public void record(SessionOutcomes outcomes) {
    outcomes.firstScreenCompletionRate().ifPresent(v -> firstScreen.set(v,
        Attributes.of(FIRST_SCREEN_MS, outcomes.firstScreen().toMillis())));
    outcomes.interruptionRate().ifPresent(v -> interruption.set(v,
        Attributes.of(PATIENCE_MS, outcomes.patience().toMillis())));
  }

  @Override
  public String toString() {
    return "SessionTelemetry[" + AGENT_TURN_LATENCY + ", " + TOOL_CHAIN_COMPLETION_RATE + ", ...]";
  }
}
