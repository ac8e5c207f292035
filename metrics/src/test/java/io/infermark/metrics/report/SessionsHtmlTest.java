package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TestRuns;
import io.infermark.metrics.session.SessionSummary;
import io.infermark.metrics.session.SessionSummaryFixtures;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionsHtmlTest {

  @Test
  void sessionsSectionShowsEveryTurnLatencySeriesAndTheCompletionRate() {
    String html = HtmlReport.builder(TestRuns.run(SessionSummaryFixtures.records())).build().html();
    assertThat(html).contains("<h2>Sessions</h2>").contains("tool_chain_completion_rate 50.00%")
        .contains("agent_turn_latency_ms{tool_call_depth=0, retry_count=0}")
        .contains("agent_turn_latency_ms{tool_call_depth=1, retry_count=0}")
        .contains("agent_turn_latency_ms{tool_call_depth=1, retry_count=1}</td><td>1</td><td>200.00</td>")
        .contains("Memory decay 50.00% (2 probes)");
  }

  @Test
  void runWithoutSessionsHasNoSessionsSection() {
    assertThat(HtmlReport.builder(RunSummary.of(TestRuns.mixedRun())).build().html()).doesNotContain("<h2>Sessions");
    StringBuilder b = new StringBuilder();
    SessionsHtml.section(b, SessionSummary.of(List.of()));
    assertThat(b).isEmpty();
  }
}
