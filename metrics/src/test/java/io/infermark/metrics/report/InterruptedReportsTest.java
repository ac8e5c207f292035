package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.Interruption;
import io.infermark.core.RunResult;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TestRuns;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** An interrupted run says so, with why, when and its counts, in every report; a complete run says nothing. */
class InterruptedReportsTest {

  private static final Interruption SIGINT =
      new Interruption("SIGINT", Instant.parse("2026-12-02T08:00:10Z"), 10_000_000_000L, 50, 2, 248, 0);

  private static RunResult interrupted() {
    return TestRuns.mixedRun().withInterruption(Optional.of(SIGINT));
  }

  @Test
  void theConsoleTableSaysWhyWhenAndHowMany() {
    assertThat(ConsoleTable.render(RunSummary.of(interrupted())))
        .contains("INTERRUPTED (SIGINT) at 2026-12-02T08:00:10Z, 10.000 s into the run:\n"
            + "  50 completed, 2 cancelled, 248 never sent\n");
    assertThat(ConsoleTable.render(RunSummary.of(TestRuns.mixedRun()))).doesNotContain("INTERRUPTED");
  }

  @Test
  void infermarksJsonCarriesTheInterruption() throws Exception {
    JsonNode run = new ObjectMapper().readTree(JsonReport.toJson(RunSummary.of(interrupted()))).get("run");
    JsonNode i = run.get("interruption");
    assertThat(i.get("reason").asText()).isEqualTo("SIGINT");
    assertThat(i.get("at_s").asDouble()).isEqualTo(10.0);
    assertThat(i.get("completed").asLong()).isEqualTo(50);
    assertThat(i.get("cancelled").asLong()).isEqualTo(2);
    assertThat(i.get("not_sent").asLong()).isEqualTo(248);
    JsonNode complete = new ObjectMapper().readTree(JsonReport.toJson(RunSummary.of(TestRuns.mixedRun()))).get("run");
    assertThat(complete.get("interruption").isNull()).isTrue();
  }

  @Test
  void vllmsJsonMarksItWithKeysOnlyAnInterruptedRunHas() {
    VllmResultOptions options = VllmResultOptions.builder("openai-chat", "m").build();
    Map<String, Object> m = VllmResultJson.result(interrupted(), options);
    assertThat(m).containsEntry("interrupted", true);
    @SuppressWarnings("unchecked")
    Map<String, Object> how = (Map<String, Object>) m.get("interruption");
    assertThat(how).containsEntry("reason", "SIGINT").containsEntry("completed", 50L).containsEntry("cancelled", 2L)
        .containsEntry("not_sent", 248L);
    assertThat(VllmResultJson.result(TestRuns.mixedRun(), options)).doesNotContainKeys("interrupted", "interruption");
  }

  @Test
  void theHtmlReportShowsABanner() {
    assertThat(HtmlReport.builder(interrupted()).build().html()).contains("<strong>Interrupted</strong>: interrupted "
        + "(SIGINT)");
    assertThat(HtmlReport.builder(TestRuns.mixedRun()).build().html()).doesNotContain("Interrupted</strong>");
  }
}
