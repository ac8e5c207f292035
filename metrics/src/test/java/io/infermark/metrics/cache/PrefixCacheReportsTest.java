package io.infermark.metrics.cache;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TestRuns;
import io.infermark.metrics.report.ConsoleTable;
import io.infermark.metrics.report.HtmlReport;
import io.infermark.metrics.report.JsonReport;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The prefix cache in the console table, the JSON report and the HTML report. */
class PrefixCacheReportsTest {

  private static RequestRecord record(long index, int ttftMs, int prompt, int cached, String session, String turn) {
    return RequestRecord.builder().index(index).requestId("r" + index).httpStatus(200).sendNanos(index * 1_000_000L)
        .tags(Map.of("session", session, "turn", turn))
        .usage(Usage.builder().promptTokens(prompt).completionTokens(2).cachedPromptTokens(cached).build())
        .chunks(ChunkTimeline.builder().add(ttftMs * 1_000_000L, ChunkKind.CONTENT, 1)
            .add(ttftMs * 1_000_000L + 1_000_000L, ChunkKind.CONTENT, 1).build())
        .endOffsetNanos(ttftMs * 1_000_000L + 2_000_000L).build();
  }

  private static final List<RequestRecord> RECORDS = List.of(record(0, 80, 100, 0, "<s>", "0"),
      record(1, 10, 150, 96, "<s>", "1"), record(2, 90, 100, 0, "b", "0"), record(3, 12, 160, 144, "b", "1"));

  @Test
  void consoleShowsTheRatioItsTokensTheReportingCountAndTtftOfHitsAndMisses() {
    String table = ConsoleTable.render(RunSummary.of(TestRuns.run(RECORDS)));
    assertThat(table).contains("prefix cache: hit ratio 47.1 % (240 of 510 prompt tokens cached; 4 of 4 requests "
        + "reported, 2 hits)");
    assertThat(table).containsPattern("TTFT cache hit +2 +11\\.000");
    assertThat(table).containsPattern("TTFT cache miss +2 +85\\.000");
    assertThat(table).contains("  turn 0       2 requests, hit ratio 0.0 %").contains("  turn 1       2 requests, "
        + "hit ratio 77.4 %");
    assertThat(table.lines()).allMatch(l -> l.length() <= ConsoleTable.WIDTH);
  }

  @Test
  void jsonCarriesTheRunTurnsAndSessions() throws Exception {
    JsonNode c = new ObjectMapper().readTree(JsonReport.toJson(RunSummary.of(TestRuns.run(RECORDS))))
        .get("prefix_cache");
    assertThat(c.get("cached_tokens").asLong()).isEqualTo(240);
    assertThat(c.get("prompt_tokens").asLong()).isEqualTo(510);
    assertThat(c.get("hit_ratio").asDouble()).isEqualTo(240.0 / 510);
    assertThat(c.get("reporting_requests").asInt()).isEqualTo(4);
    assertThat(c.get("ideal_hit_ratio").isNull()).isTrue();
    assertThat(c.get("ttft_hit_ms").get("p50").asDouble()).isEqualTo(11.0);
    assertThat(c.get("by_turn").get("1").get("hit_ratio").asDouble()).isEqualTo(240.0 / 310);
    assertThat(c.get("by_session").get("<s>").get("cached_tokens").asLong()).isEqualTo(96);
  }

  @Test
  void htmlEscapesSessionNames() {
    String html = HtmlReport.builder(RunSummary.of(TestRuns.run(RECORDS))).build().html();
    assertThat(html).contains("<h2>Prefix cache</h2>").contains("session &lt;s&gt;").doesNotContain("session <s>");
  }

  @Test
  void aRunWhoseServerReportedNoCacheShowsNothing() {
    RequestRecord plain = RECORDS.get(0).toBuilder().usage(Usage.builder().promptTokens(10).completionTokens(2).build())
        .build();
    RunSummary s = RunSummary.of(TestRuns.run(List.of(plain)));
    assertThat(ConsoleTable.render(s)).doesNotContain("prefix cache");
    assertThat(JsonReport.toJson(s)).doesNotContain("prefix_cache");
    assertThat(HtmlReport.builder(s).build().html()).doesNotContain("Prefix cache");
  }
}
