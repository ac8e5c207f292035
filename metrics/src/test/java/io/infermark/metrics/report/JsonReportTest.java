package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TestRuns;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonReportTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static JsonNode parse(String json) throws Exception {
    return MAPPER.readTree(json);
  }

  @Test
  void writesRunMetadataWithUnitsInNames() throws Exception {
    RunResult run = TestRuns.mixedRun();

    JsonNode root = parse(JsonReport.toJson(RunSummary.of(run)));

    assertThat(root.get("schema_version").asInt()).isEqualTo(JsonReport.SCHEMA_VERSION);
    JsonNode r = root.get("run");
    assertThat(r.get("started_at").asText()).isEqualTo("2025-03-04T05:06:07Z");
    assertThat(r.get("duration_ms").asDouble()).isEqualTo(1500.0);
    assertThat(r.get("target").asText()).isEqualTo(run.target());
    assertThat(r.get("prompt_count").asInt()).isEqualTo(1);
    assertThat(r.at("/load/mode").asText()).isEqualTo("closed_loop");
    assertThat(r.at("/load/concurrency").asInt()).isEqualTo(1);
    assertThat(r.at("/load/arrival_process").isNull()).isTrue();
    assertThat(r.at("/load/requests").asInt()).isEqualTo(9);
    assertThat(r.at("/load/drain_timeout_s").asDouble()).isEqualTo(60.0);
    assertThat(r.at("/load/timeout_s").isNull()).isTrue();
    assertThat(r.at("/params/stream").asBoolean()).isTrue();
    assertThat(r.at("/params/max_tokens").isNull()).isTrue();
    assertThat(r.at("/environment/available_processors").asInt()).isEqualTo(run.environment().availableProcessors());
    assertThat(r.at("/environment/max_heap_bytes").asLong()).isEqualTo(run.environment().maxHeapBytes());
    assertThat(root.get("quantile_method").asText()).isEqualTo("linear");
  }

  @Test
  void writesCountsFailuresWindowThroughputAndTokens() throws Exception {
    JsonNode root = parse(JsonReport.toJson(RunSummary.of(TestRuns.mixedRun())));

    JsonNode req = root.get("requests");
    assertThat(req.get("scheduled").asInt()).isEqualTo(9);
    assertThat(req.get("warmup_excluded").asInt()).isEqualTo(1);
    assertThat(req.get("measured").asInt()).isEqualTo(8);
    assertThat(req.get("succeeded").asInt()).isEqualTo(4);
    assertThat(req.get("failed").asInt()).isEqualTo(4);
    assertThat(req.get("succeeded_without_tokens").asInt()).isEqualTo(1);
    assertThat(fieldNames(root.get("failures_by_category"))).containsExactly("http_status", "timeout", "not_sent");
    assertThat(root.at("/failures_by_category/http_status").asInt()).isEqualTo(2);
    assertThat(root.at("/measurement_window/start_ms").asDouble()).isEqualTo(100.0);
    assertThat(root.at("/measurement_window/end_ms").asDouble()).isEqualTo(1500.0);
    assertThat(root.at("/measurement_window/duration_ms").asDouble()).isEqualTo(1400.0);
    assertThat(root.at("/throughput/request_throughput_rps").asDouble()).isCloseTo(4 / 1.4, within(1e-12));
    assertThat(root.at("/throughput/output_token_throughput_tps").asDouble()).isCloseTo(10 / 1.4, within(1e-12));
    assertThat(root.at("/throughput/total_token_throughput_tps").asDouble()).isCloseTo(80 / 1.4, within(1e-12));
    assertThat(root.at("/tokens/mean_output_tokens").asDouble()).isEqualTo(2.5);
    assertThat(root.at("/tokens/mean_input_tokens").asDouble()).isEqualTo(35.0);
    assertThat(root.at("/tokens/requests_without_input_tokens").asInt()).isEqualTo(2);
    assertThat(root.at("/tokens/count_sources/server_usage").asInt()).isEqualTo(3);
    assertThat(root.at("/tokens/count_sources/chunk_count").asInt()).isEqualTo(1);
    assertThat(root.at("/tokens/count_sources").has("chunk_tokens")).isFalse();
    assertThat(root.at("/tokens/count_disagreements").asInt()).isEqualTo(1);
  }

  @Test
  void writesEveryLatencyMetricInMillisecondsWithUnreliableTails() throws Exception {
    JsonNode latency = parse(JsonReport.toJson(RunSummary.of(TestRuns.mixedRun()))).get("latency");

    List<String> expected = new ArrayList<>();
    for (LatencyMetric m : LatencyMetric.values()) {
      expected.add(m.fieldName());
    }
    assertThat(fieldNames(latency)).containsExactlyElementsOf(expected);
    // TTFT {10, 10, 20}
    JsonNode ttft = latency.get("ttft_ms");
    assertThat(fieldNames(ttft)).containsExactly("count", "mean", "std", "min", "p50", "p90", "p95", "p99", "p99_9",
        "max", "unreliable_percentiles", "ci95", "tail");
    assertThat(fieldNames(latency.get("itl_ms"))).doesNotContain("tail"); // pooled: no tail diagnostics
    assertThat(ttft.get("count").asInt()).isEqualTo(3);
    assertThat(ttft.get("mean").asDouble()).isCloseTo(40.0 / 3, within(1e-12));
    assertThat(ttft.get("min").asDouble()).isEqualTo(10.0);
    assertThat(ttft.get("p50").asDouble()).isEqualTo(10.0);
    assertThat(ttft.get("p99").asDouble()).isCloseTo(19.8, within(1e-12));
    assertThat(ttft.get("max").asDouble()).isEqualTo(20.0);
    assertThat(ttft.get("unreliable_percentiles")).extracting(JsonNode::asText)
        .containsExactly("p90", "p95", "p99", "p99_9");
  }

  @Test
  void emptyDistributionsWriteNullsNotNaN() throws Exception {
    String json = JsonReport.toJson(RunSummary.of(TestRuns.run(List.of())));

    assertThat(json).doesNotContain("NaN", "Infinity");
    JsonNode root = parse(json);
    JsonNode ttft = root.at("/latency/ttft_ms");
    assertThat(ttft.get("count").asInt()).isZero();
    assertThat(ttft.get("mean").isNull()).isTrue();
    assertThat(ttft.get("p99").isNull()).isTrue();
    assertThat(ttft.get("max").isNull()).isTrue();
    assertThat(root.get("measurement_window").isNull()).isTrue();
    assertThat(root.at("/throughput/request_throughput_rps").isNull()).isTrue();
    assertThat(root.at("/tokens/mean_input_tokens").isNull()).isTrue();
    assertThat(root.get("failures_by_category").size()).isZero();
  }

  @Test
  void writesOpenLoopProfilesAndScheduleStats() throws Exception {
    RunResult run = TestRuns.run(TestRuns.mixedRun().records(),
        LoadProfile.poisson(10).duration(Duration.ofSeconds(30)).maxInFlight(64).seed(42));

    JsonNode root = parse(JsonReport.toJson(RunSummary.of(run)));

    assertThat(root.at("/run/load/mode").asText()).isEqualTo("open_loop");
    assertThat(root.at("/run/load/concurrency").isNull()).isTrue();
    assertThat(root.at("/run/load/arrival_process").asText()).isEqualTo("poisson(10.0/s)");
    assertThat(root.at("/run/load/requested_rate_rps").asDouble()).isEqualTo(10.0);
    assertThat(root.at("/run/load/duration_s").asDouble()).isEqualTo(30.0);
    assertThat(root.at("/run/load/max_in_flight").asInt()).isEqualTo(64);
    assertThat(root.at("/run/load/seed").asLong()).isEqualTo(42);
    JsonNode schedule = root.get("schedule");
    assertThat(schedule.get("requested_rate_rps").asDouble()).isEqualTo(10.0);
    assertThat(schedule.get("sent").asInt()).isEqualTo(run.schedule().sent());
    assertThat(schedule.get("not_sent").asInt()).isEqualTo(1);
    assertThat(schedule.get("lag_max_ms").asDouble()).isEqualTo(50.0);
    assertThat(schedule.get("lag_p99_ms").asDouble()).isCloseTo(run.schedule().lagP99Nanos() / 1e6, within(1e-12));
  }

  @Test
  void writesToPathAndWriterIdentically(@TempDir Path dir) throws Exception {
    RunSummary s = RunSummary.of(TestRuns.mixedRun());
    Path file = dir.resolve("summary.json");
    StringWriter w = new StringWriter();

    JsonReport.write(s, file);
    JsonReport.write(s, w);

    assertThat(Files.readString(file)).isEqualTo(w.toString()).isEqualTo(JsonReport.toJson(s));
    assertThat(w.toString()).contains("\n  \"schema_version\": 2,\n").endsWith("}\n");
  }

  @Test
  void neverWritesHeaderValues() throws Exception {
    RunResult base = TestRuns.mixedRun();
    RunResult run = RunResult.builder()
        .records(base.records())
        .startedAt(base.startedAt())
        .originNanos(base.originNanos())
        .durationNanos(base.durationNanos())
        .target(base.target())
        .load(base.load())
        .params(io.infermark.core.request.GenerationParams.builder().maxTokens(128).ignoreEos(true) .header("Authorization", "Bearer sk-secret").extraBody("top_k", 5).build())
        .promptCount(base.promptCount())
        .environment(base.environment())
        .schedule(base.schedule())
        .build();

    String json = JsonReport.toJson(RunSummary.of(run));

    assertThat(json).doesNotContain("sk-secret");
    JsonNode params = parse(json).at("/run/params");
    assertThat(params.get("header_names")).extracting(JsonNode::asText).containsExactly("Authorization");
    assertThat(params.get("extra_body_fields")).extracting(JsonNode::asText).containsExactly("top_k");
    assertThat(params.get("max_tokens").asInt()).isEqualTo(128);
    assertThat(params.get("ignore_eos").asBoolean()).isTrue();
    assertThat(Optional.ofNullable(params.get("temperature")).map(JsonNode::isNull)).contains(true);
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  @Test
  void writesPercentileIntervalsAndFlagsThoseThatCannotBeFormed() throws Exception {
    double[] values = new double[1000];
    List<io.infermark.core.capture.RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      records.add(io.infermark.core.capture.RequestRecord.builder().index(i).httpStatus(200)
          .chunks(io.infermark.core.capture.ChunkTimeline.builder()
              .add(TestRuns.ms(i + 1), io.infermark.core.capture.ChunkKind.CONTENT, 1).build())
          .endOffsetNanos(TestRuns.ms(i + 2)).build());
    }
    JsonNode ttft = parse(JsonReport.toJson(RunSummary.of(TestRuns.run(records)))).at("/latency/ttft_ms");
    // TTFT is 1..1000 ms: the P99 95 % interval is ranks 983..997 (see OrderStatisticRanksTest)
    assertThat(ttft.at("/ci95/p99/lower").asDouble()).isEqualTo(983.0);
    assertThat(ttft.at("/ci95/p99/upper").asDouble()).isEqualTo(997.0);
    assertThat(ttft.at("/ci95/p50/lower").asDouble()).isLessThan(500.5);
    assertThat(ttft.at("/ci95/p99_9").isNull()).isTrue(); // needs 3688 values
    assertThat(ttft.at("/tail/p99_unstable").asBoolean()).isFalse();
    assertThat(ttft.at("/tail/hill_alpha").asDouble()).isGreaterThan(2);
  }

  @Test
  void vllmBlockUsesVllmNamesAndDefinitions() throws Exception {
    RunResult run = TestRuns.mixedRun();
    RunSummary summary = RunSummary.of(run);
    var slo = io.infermark.metrics.slo.SloPresets.chat().evaluate(run, summary);
    var series = io.infermark.metrics.timeseries.TimeSeries.of(run);
    JsonNode root = parse(JsonReport.toJson(summary, JsonReport.Extras.NONE.withSlo(slo).withSeries(series)));
    JsonNode v = root.get("vllm");
    assertThat(v.get("duration").asDouble()).isCloseTo(1.4, within(1e-12));
    assertThat(v.get("completed").asInt()).isEqualTo(4);
    // four failed records, one of them never sent (the run ended first): vLLM's failed counts the three sent ones
    assertThat(v.get("failed").asInt()).isEqualTo(3);
    assertThat(root.get("requests").get("failed").asInt()).as("infermark's count keeps the never-sent one").isEqualTo(4);
    assertThat(v.get("total_input_tokens").asInt()).isEqualTo(70);
    assertThat(v.get("total_output_tokens").asInt()).isEqualTo(10);
    assertThat(v.get("request_throughput").asDouble()).isCloseTo(4 / 1.4, within(1e-9));
    assertThat(v.get("output_throughput").asDouble()).isCloseTo(10 / 1.4, within(1e-9));
    assertThat(v.get("total_token_throughput").asDouble()).isCloseTo(80 / 1.4, within(1e-9));
    assertThat(v.get("request_goodput").asDouble()).isCloseTo(3 / 1.4, within(1e-9));
    assertThat(v.get("max_concurrent_requests").asInt()).isEqualTo((int) series.peakConcurrency().value());
    // vLLM's TTFT counts the role chunk: [2, 5, 10, 20] ms (numpy: mean 9.25, median 7.5, std 6.8328)
    assertThat(v.get("mean_ttft_ms").asDouble()).isCloseTo(9.25, within(1e-12));
    assertThat(v.get("median_ttft_ms").asDouble()).isCloseTo(7.5, within(1e-12));
    assertThat(v.get("std_ttft_ms").asDouble()).isCloseTo(Math.sqrt(186.75 / 4), within(1e-12));
    assertThat(v.get("p99_ttft_ms").asDouble()).isCloseTo(19.7, within(1e-12)); // numpy.percentile([2,5,10,20], 99)
    assertThat(v.has("p99.9_ttft_ms")).isTrue();
    // TPOT [10, 20, 2.5]; E2E [30, 40, 20]
    assertThat(v.get("mean_tpot_ms").asDouble()).isCloseTo(32.5 / 3, within(1e-12));
    assertThat(v.get("mean_e2el_ms").asDouble()).isCloseTo(30.0, within(1e-12));
    assertThat(v.get("median_itl_ms").asDouble()).isCloseTo(10.0, within(1e-12));
    JsonNode s = root.get("slo");
    assertThat(s.get("name").asText()).isEqualTo("chat");
    assertThat(s.at("/verdicts/0/slo").asText()).isEqualTo("TTFT p99 <= 200 ms");
    assertThat(s.at("/verdicts/0/outcome").asText()).isEqualTo("pass");
    assertThat(s.at("/goodput/met").asInt()).isEqualTo(3);
  }

  @Test
  void withoutExtrasTheOptionalVllmFieldsAreNullAndSloIsAbsent() throws Exception {
    JsonNode root = parse(JsonReport.toJson(RunSummary.of(TestRuns.mixedRun())));
    assertThat(root.at("/vllm/request_goodput").isNull()).isTrue();
    assertThat(root.at("/vllm/max_output_tokens_per_s").isNull()).isTrue();
    assertThat(root.has("slo")).isFalse();
  }
}
