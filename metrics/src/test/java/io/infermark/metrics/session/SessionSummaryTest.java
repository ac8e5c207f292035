package io.infermark.metrics.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.metrics.session.SessionSummary.Outcome;
import io.infermark.metrics.session.SessionSummary.TurnLatency;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SessionSummaryTest {

  private final SessionSummary s = SessionSummary.of(SessionRecords.all());

  @Test
  void sessionsAreCompletedFailedOrCutAndWarmupSessionsAreLeftOut() {
    assertThat(s.sessions()).isEqualTo(3);
    assertThat(s.outcomes()).containsExactlyInAnyOrderEntriesOf(Map.of(Outcome.COMPLETED, 1, Outcome.FAILED, 1,
        Outcome.CUT, 1));
    assertThat(s.toolChainCompletionRate()).hasValue(0.5);
  }

  @Test
  void sessionTimeRunsFromTheFirstIntendedCallToTheLastEnd() {
    assertThat(s.sessionMillis().sortedValuesMillis()).containsExactly(500.0);
    assertThat(s.turnsPerSession().sortedValuesMillis()).containsExactly(0.0, 2.0);
  }

  @Test
  void agentTurnLatencyIsLabelledByDeepestCallAndRetriesInTheTurn() {
    List<TurnLatency> t = s.turnLatency();
    assertThat(t).extracting(TurnLatency::toolCallDepth, TurnLatency::retryCount).containsExactly(
        org.assertj.core.groups.Tuple.tuple(0, 0), org.assertj.core.groups.Tuple.tuple(1, 0),
        org.assertj.core.groups.Tuple.tuple(1, 1));
    assertThat(t.get(0).latencyMillis().sortedValuesMillis()).containsExactly(50.0);
    assertThat(t.get(1).latencyMillis().sortedValuesMillis()).containsExactly(250.0);
    assertThat(t.get(2).latencyMillis().sortedValuesMillis()).containsExactly(200.0);
  }

  @Test
  void retriesConvergeOrExhaustWithTheirCycles() {
    assertThat(s.retries().retriedCalls()).isEqualTo(2);
    assertThat(s.retries().converged()).isEqualTo(1);
    assertThat(s.retries().exhausted()).isEqualTo(1);
    assertThat(s.retries().cycles().sortedValuesMillis()).containsExactly(2.0);
  }

  @Test
  void timeSplitsIntoToolsModelAndTheRest() {
    assertThat(s.toolMillis()).isCloseTo(90, within(1e-9));
    assertThat(s.modelMillis()).isCloseTo(360, within(1e-9));
    assertThat(s.otherMillis()).isCloseTo(80, within(1e-9));
  }

  @Test
  void ttftIsSetAgainstContextLengthPerTurn() {
    assertThat(s.ttftByTurn()).hasSize(1);
    SessionSummary.ContextPoint p = s.ttftByTurn().get(0);
    assertThat(p.turn()).isZero();
    assertThat(p.calls()).isEqualTo(2);
    assertThat(p.meanContextTokens()).isEqualTo(75.0);
    assertThat(p.ttftMillis().p50()).hasValue(15.0);
    // (100 tokens, 20 ms) and (50 tokens, 10 ms): 0.2 ms per token
    assertThat(s.ttftMillisPerThousandContextTokens().getAsDouble()).isCloseTo(200, within(1e-9));
  }

  @Test
  void memoryDecayAndContextTruncationAreMeasured() {
    SessionSummary.Fidelity f = s.fidelity();
    assertThat(f.probes()).isEqualTo(2);
    assertThat(f.recalled()).isEqualTo(1);
    assertThat(f.memoryDecayRate()).hasValue(0.5);
    assertThat(f.recallByTurn()).containsExactlyInAnyOrderEntriesOf(Map.of(0, 1.0, 1, 0.0));
    assertThat(f.checkedCalls()).isEqualTo(3);
    assertThat(f.truncatedCalls()).isEqualTo(1);
    assertThat(f.contextTruncationRate().getAsDouble()).isCloseTo(1.0 / 3, within(1e-12));
    // a pluggable judge decides recall
    assertThat(SessionSummary.of(SessionRecords.all(), (reply, fact) -> true).fidelity().memoryDecayRate())
        .hasValue(0.0);
  }

  @Test
  void contextLengthErrorCountsAsTruncationAndFailsTheSession() {
    java.util.List<io.infermark.core.capture.RequestRecord> one = List.of(io.infermark.core.capture.RequestRecord
        .builder().index(0).httpStatus(400).endOffsetNanos(1_000_000)
        .tags(Map.of(io.infermark.core.session.SessionTags.SESSION, "x", io.infermark.core.session.SessionTags.TURN,
            "0", io.infermark.core.session.SessionTags.TOOL_CALL_DEPTH, "0",
            io.infermark.core.session.SessionTags.RETRY_COUNT, "0"))
        .failure(java.util.Optional.of(io.infermark.core.capture.Failure.httpStatus(400,
            "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens"))).build());
    SessionSummary x = SessionSummary.of(one);
    assertThat(x.fidelity().contextLengthErrors()).isEqualTo(1);
    assertThat(x.fidelity().contextTruncationRate()).hasValue(1.0);
    assertThat(x.outcomes().get(Outcome.FAILED)).isEqualTo(1);
  }

  @Test
  void consoleLinesNameTheSeedsMetrics() {
    assertThat(String.join("\n", s.lines())).contains("tool_chain_completion_rate 50.00%")
        .contains("agent_turn_latency_ms{tool_call_depth=1,retry_count=1}  n 1  p50 200.0")
        .contains("memory decay 50.00% (2 probes)");
    assertThat(SessionSummary.of(List.of()).lines()).isEmpty();
  }
}
