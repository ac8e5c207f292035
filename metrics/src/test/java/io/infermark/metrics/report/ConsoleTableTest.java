package io.infermark.metrics.report;

import static io.infermark.metrics.TestRuns.ms;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.load.LoadProfile;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TestRuns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConsoleTableTest {

  private static List<String> lines(String table) {
    return Arrays.asList(table.split("\n"));
  }

  private static String line(String table, String start) {
    return lines(table).stream().filter(l -> l.startsWith(start)).findFirst()
        .orElseThrow(() -> new AssertionError("no line starting with '" + start + "' in\n" + table));
  }

  @Test
  void hasARowPerMetricWithCountAndMillisecondStatistics() {
    String table = ConsoleTable.render(RunSummary.of(TestRuns.mixedRun()));

    assertThat(line(table, "metric (ms)")).isEqualTo(
        "metric (ms)            count      mean       p50       p90       p95       p99     p99.9       max");
    for (LatencyMetric m : LatencyMetric.values()) {
      assertThat(line(table, m.name() + " ")).isNotNull();
    }
    // TTFT {10, 10, 20}: mean 13.333, p90 18, p95 19, p99 19.8, p99.9 19.98; p90 and up rest on too few samples.
    assertThat(line(table, "TTFT ")).isEqualTo(
        "TTFT                       3    13.333    10.000    18.000*   19.000*   19.800*   19.980*   20.000");
    // E2E {20, 30, 40}
    assertThat(line(table, "E2E ")).isEqualTo(
        "E2E                        3    30.000    30.000    38.000*   39.000*   39.800*   39.980*   40.000");
  }

  @Test
  void marksOnlyPercentilesThatRestOnTooFewSamples() {
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      records.add(RequestRecord.builder().index(i)
          .chunks(ChunkTimeline.builder().add(ms(i + 1), ChunkKind.CONTENT, 1).build())
          .endOffsetNanos(ms(i + 1)).build());
    }

    String table = ConsoleTable.render(RunSummary.of(TestRuns.run(records)));

    // 150 values: p99 is reliable (needs 100), p99.9 is not (needs 1000).
    String ttft = line(table, "TTFT ");
    assertThat(ttft).contains(" 148.510 ", " 149.851*");
    assertThat(ttft).doesNotContain("148.510*");
    assertThat(table).contains("* too few samples for this percentile (p99 needs 100, p99.9 needs 1000)");
  }

  @Test
  void showsEmptyMetricsAsDashes() {
    String table = ConsoleTable.render(RunSummary.of(TestRuns.mixedRun()));

    // No record states per-chunk token counts, so per-token ITL is empty.
    assertThat(line(table, "ITL_PER_TOKEN ")).isEqualTo(
        "ITL_PER_TOKEN              0         -         -         -         -         -         -         -");
  }

  @Test
  void listsRequestsThroughputTokensFailuresAndScheduleLag() {
    String table = ConsoleTable.render(RunSummary.of(TestRuns.mixedRun()));

    assertThat(line(table, "Requests")).isEqualTo(
        "Requests    9 scheduled, 1 warmup excluded, 8 measured, 4 succeeded (1 without tokens), 4 failed");
    assertThat(line(table, "Window")).isEqualTo(
        "Window      1.400 s from the first intended send to the last request end");
    assertThat(line(table, "Throughput")).isEqualTo(
        "Throughput  2.86 req/s, 7.1 output tok/s, 57.1 total tok/s (input unknown for 2 requests)");
    assertThat(line(table, "Tokens")).isEqualTo(
        "Tokens      mean input 35.0, mean output 2.5, 1 server/stream count disagreement");
    assertThat(line(table, "N from")).isEqualTo("N from      SERVER_USAGE 3, CHUNK_COUNT 1");
    assertThat(line(table, "Failures")).isEqualTo("Failures    HTTP_STATUS 2, TIMEOUT 1, NOT_SENT 1");
    // Lags of the seven sent requests, failed ones included: six of 0 ms and one of 50 ms.
    // p90 = 0.4 * 50 (index 5.4), p99 = 0.94 * 50 (index 5.94), p99.9 = 0.994 * 50.
    assertThat(line(table, "Schedule")).startsWith("Schedule    scheduled ").endsWith(", 7 sent, 1 NOT SENT");
    assertThat(line(table, "Send lag")).isEqualTo("Send lag    p50 0.000 ms, p90 20.000 ms, p99 47.000 ms, "
        + "p99.9 49.700 ms, max 50.000 ms");
  }

  @Test
  void fitsInOneHundredColumnsWithoutColours() {
    List<RequestRecord> records = new ArrayList<>();
    ErrorCategory[] categories = ErrorCategory.values();
    for (int i = 0; i < categories.length; i++) {
      records.add(RequestRecord.builder().index(i).intendedNanos(ms(i)).sendNanos(ms(i))
          .failure(Optional.of(categories[i] == ErrorCategory.TIMEOUT
              ? Failure.timeout(io.infermark.core.capture.TimeoutPhase.CALL, "deadline")
              : Failure.of(categories[i], "failed"))).build());
    }
    // A very slow request: values above 100 s must still fit their columns.
    records.add(RequestRecord.builder().index(99).intendedNanos(0).sendNanos(ms(123_456.789))
        .chunks(ChunkTimeline.builder()
            .add(ms(98_765_432.1), ChunkKind.CONTENT, 1)
            .add(ms(198_765_432.1), ChunkKind.CONTENT, 1).build())
        .usage(Usage.of(1, 2)).endOffsetNanos(ms(198_765_433)).build());
    RunSummary s = RunSummary.of(TestRuns.run(records, LoadProfile.poisson(1234.5).requests(100)));

    String table = ConsoleTable.render(s);

    assertThat(lines(table)).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(ConsoleTable.WIDTH));
    assertThat(table).doesNotContain("\u001b");
    // Nine categories do not fit one line: they continue under the first item.
    assertThat(line(table, "Failures")).startsWith("Failures    HTTP_STATUS 1, CONNECT 1,").endsWith(",");
    assertThat(table).containsPattern("\n {12}[A-Z_ 0-9,]*CLIENT 1, EMPTY_RESPONSE 1\n");
    assertThat(lines(table).stream().filter(l -> l.startsWith("TTFT ")).findFirst().orElseThrow())
        .contains("98765432");
  }
}
