package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TestRuns;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CsvAndComparisonTest {

  /** A run of n requests whose TTFT is offset + i ms for i = 1..n. */
  static RunResult ttftRun(int n, double offsetMillis) {
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      records.add(RequestRecord.builder().index(i).intendedNanos(TestRuns.ms(i)).sendNanos(TestRuns.ms(i))
          .httpStatus(200).chunks(ChunkTimeline.builder()
              .add(TestRuns.ms(offsetMillis + i), ChunkKind.CONTENT, 1).build())
          .endOffsetNanos(TestRuns.ms(offsetMillis + i + 1)).build());
    }
    return TestRuns.run(records);
  }

  @Test
  void csvHasAHeaderAndOneRowPerSummaryWithEscaping() {
    Map<String, RunSummary> runs = new LinkedHashMap<>();
    runs.put("baseline", RunSummary.of(TestRuns.mixedRun()));
    runs.put("=cmd|, \"quoted\"", RunSummary.of(TestRuns.mixedRun()));
    String csv = CsvReport.toCsv(runs);
    String[] lines = csv.split("\r\n");
    assertThat(lines).hasSize(3);
    assertThat(lines[0]).startsWith("label,started_at,target,measured,succeeded,failed,duration_s,")
        .contains(",ttft_count,ttft_mean_ms,ttft_p50_ms,").endsWith(",e2e_max_ms");
    List<String> header = CsvReport.header();
    assertThat(header).hasSize(12 + 4 * 8);
    String[] row = lines[1].split(",", -1);
    assertThat(row).hasSize(header.size());
    assertThat(row[header.indexOf("succeeded")]).isEqualTo("4");
    assertThat(Double.parseDouble(row[header.indexOf("ttft_p99_ms")])).isCloseTo(19.8, within(1e-12));
    assertThat(row[header.indexOf("duration_s")]).isEqualTo("1.4");
    assertThat(lines[2]).startsWith("\"'=cmd|, \"\"quoted\"\"\",");
  }

  @Test
  void comparisonIntervalComesFromBothRunsOrderStatistics() throws Exception {
    // Baseline TTFT 1..1000 ms, candidate 101..1100 ms: every percentile moves by exactly 100 ms.
    RunSummary base = RunSummary.of(ttftRun(1000, 0));
    RunSummary cand = RunSummary.of(ttftRun(1000, 100));
    RunComparison c = RunComparison.of("a", base, "b", cand);
    RunComparison.Delta p50 = c.delta(LatencyMetric.TTFT, 0.5);
    assertThat(p50.deltaMillis().getAsDouble()).isCloseTo(100, within(1e-9));
    assertThat(p50.relative().getAsDouble()).isCloseTo(100 / 500.5, within(1e-9));
    // At sqrt(0.95) each side, the median's ranks are symmetric: [r, 1001 - r]; the interval is
    // [100 + r - (1001 - r), 100 + (1001 - r) - r], centred on 100.
    double lower = p50.lowerMillis().getAsDouble();
    double upper = p50.upperMillis().getAsDouble();
    assertThat(lower + upper).isCloseTo(200, within(1e-9));
    assertThat(lower).isGreaterThan(0);
    assertThat(p50.significant()).isTrue();
    var ranks = io.infermark.metrics.stats.OrderStatisticRanks.of(1000, 0.5, Math.sqrt(0.95)).orElseThrow();
    assertThat(lower).isEqualTo(100.0 + ranks.lower() - ranks.upper());
    // 1000 values are enough for a P99 interval at 97.47 % per side (samplesNeeded is 435).
    assertThat(c.delta(LatencyMetric.TTFT, 0.99).lowerMillis()).isPresent();
    assertThat(io.infermark.metrics.stats.OrderStatisticRanks.samplesNeeded(0.99, Math.sqrt(0.95))).isEqualTo(435);
    JsonNode json = new ObjectMapper().readTree(c.toJson());
    assertThat(json.get("baseline").asText()).isEqualTo("a");
    assertThat(json.at("/latency/0/metric").asText()).isEqualTo("ttft_ms");
    assertThat(json.at("/latency/0/percentile").asText()).isEqualTo("p50");
    assertThat(json.at("/latency/0/delta_ms").asDouble()).isCloseTo(100, within(1e-9));
    assertThat(json.at("/latency/0/significant").asBoolean()).isTrue();
  }

  @Test
  void identicalRunsAreNotSignificantlyDifferent() {
    RunSummary s = RunSummary.of(ttftRun(1000, 0));
    RunComparison c = RunComparison.of("a", s, "b", s);
    assertThat(c.deltas()).noneMatch(RunComparison.Delta::significant);
    assertThat(c.requestThroughputDeltaRps().getAsDouble()).isEqualTo(0.0);
  }

  @Test
  void tooFewValuesGiveNoInterval() {
    RunComparison c = RunComparison.of("a", RunSummary.of(TestRuns.mixedRun()), "b",
        RunSummary.of(TestRuns.mixedRun()));
    RunComparison.Delta p99 = c.delta(LatencyMetric.TTFT, 0.99);
    assertThat(p99.lowerMillis()).isEmpty();
    assertThat(p99.significant()).isFalse();
    assertThat(p99.deltaMillis().getAsDouble()).isEqualTo(0.0);
  }
}
