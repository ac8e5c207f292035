package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.metrics.TestRuns;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class VllmResultJsonTest {

  private static long ms(double v) {
    return Math.round(v * 1_000_000);
  }

  /** Role at 10 ms, content at 20, 30, 40 ms, an empty finish chunk at 41 ms, usage at 45 ms. */
  private static RequestRecord chatStream(long index) {
    return RequestRecord.builder().index(index).intendedNanos(ms(0)).sendNanos(ms(0)).httpStatus(200)
        .chunks(ChunkTimeline.builder().add(ms(10), ChunkKind.ROLE, 0).add(ms(20), ChunkKind.CONTENT, 1)
            .add(ms(30), ChunkKind.CONTENT, 1).add(ms(40), ChunkKind.CONTENT, 1).add(ms(41), ChunkKind.EMPTY, 0)
            .add(ms(45), ChunkKind.USAGE, 0).build())
        .usage(Usage.of(7, 3)).endOffsetNanos(ms(46)).build();
  }

  private static RequestRecord failed(long index) {
    return RequestRecord.builder().index(index).intendedNanos(ms(1)).sendNanos(ms(1)).httpStatus(500)
        .failure(Optional.of(Failure.httpStatus(500, "overloaded"))).endOffsetNanos(ms(2)).build();
  }

  private static RunResult run() {
    return TestRuns.run(List.of(chatStream(0), failed(1)));
  }

  private static VllmResultOptions.Builder options() {
    return VllmResultOptions.builder("openai-chat", "org/model-8b").date(LocalDateTime.of(2026, 1, 2, 3, 4, 5))
        .metrics(List.of("ttft", "tpot", "itl", "e2el")).percentiles(50, 99);
  }

  @Test
  void perRequestValuesFollowVllmsChatClient() {
    Map<String, Object> r = VllmResultJson.result(run(), options().build());

    assertThat(r.get("ttfts")).isEqualTo(List.of(0.010, 0.0));
    @SuppressWarnings("unchecked")
    List<double[]> itls = (List<double[]>) r.get("itls");
    // The gap from the role chunk to the first content and the one to the empty finish chunk count; usage does not.
    assertThat(itls.get(0)).containsExactly(new double[] {0.010, 0.010, 0.010, 0.001}, within(1e-12));
    assertThat(itls.get(1)).isEmpty();
    assertThat(r.get("input_lens")).isEqualTo(List.of(7L, 0L));
    assertThat(r.get("output_lens")).isEqualTo(List.of(3L, 0L));
    assertThat(r.get("errors")).isEqualTo(List.of("", "http_status: HTTP 500: overloaded"));
    // Chat latency ends at the last chunk (usage included): 45 ms; TPOT = (45 - 10) / (3 - 1).
    assertThat((Double) r.get("mean_e2el_ms")).isCloseTo(45.0, within(1e-9));
    assertThat((Double) r.get("mean_tpot_ms")).isCloseTo(17.5, within(1e-9));
    assertThat((Double) r.get("mean_itl_ms")).isCloseTo(7.75, within(1e-9));
    // numpy linear percentile of [1, 10, 10, 10]: P50 at h = 1.5 is 10; std is population.
    assertThat((Double) r.get("p50_itl_ms")).isCloseTo(10.0, within(1e-9));
    assertThat((Double) r.get("std_itl_ms")).isCloseTo(Math.sqrt((3 * 2.25 * 2.25 + 6.75 * 6.75) / 4), within(1e-9));
    assertThat(r.get("completed")).isEqualTo(1L);
    assertThat(r.get("failed")).isEqualTo(1L);
    assertThat(r.get("total_input_tokens")).isEqualTo(7L);
    assertThat(r.get("request_goodput")).isNull();
  }

  @Test
  void completionsLatencyEndsAtTheLastChunkWithChoices() {
    Map<String, Object> r = VllmResultJson.result(run(), options().chat(false).build());

    assertThat((Double) r.get("mean_e2el_ms")).isCloseTo(41.0, within(1e-9));
  }

  @Test
  void metadataKeysComeFirstInVllmsOrderAndTheFileNameIsVllms() throws Exception {
    VllmResultOptions o = options().numPrompts(2).maxConcurrency(4).metadata("tp", "1").build();
    JsonNode json = new ObjectMapper().readTree(VllmResultJson.toJson(run(), o));

    List<String> keys = new ArrayList<>();
    json.fieldNames().forEachRemaining(keys::add);
    // vLLM's current client (serve.py): endpoint_type and label beside backend
    assertThat(keys.subList(0, 11)).containsExactly("date", "endpoint_type", "backend", "label", "model_id",
        "tokenizer_id", "num_prompts", "tp", "request_rate", "burstiness", "max_concurrency");
    assertThat(keys).contains("p50_ttft_ms", "p99_e2el_ms", "max_output_tokens_per_s", "max_concurrent_requests")
        .doesNotContain("p90_ttft_ms");
    assertThat(json.get("date").asText()).isEqualTo("20260102-030405");
    assertThat(json.get("request_rate").asText()).isEqualTo("inf");
    assertThat(json.get("tokenizer_id").asText()).isEqualTo("org/model-8b");
    assertThat(o.fileName()).isEqualTo("openai-chat-infqps-concurrency4-model-8b-20260102-030405.json");
    assertThat(options().requestRate(2.5).build().fileName()).isEqualTo("openai-chat-2.5qps-model-8b-20260102-030405.json");
    assertThat(options().label("nightly").rampUp(new VllmResultOptions.RampUp("linear", 1, 10)).build().fileName())
        .isEqualTo("nightly-ramp-up-linear-1qps-10qps-model-8b-20260102-030405.json");
  }

  @Test
  void clientQueueTimesAreTheWaitForAConcurrencySlotAsVllmMeasuresThem() throws Exception {
    // rate inf: every request arrives at the start, so its queue time is its send time from the origin
    VllmResultOptions o = options().maxConcurrency(1).metrics(List.of("e2el", "client_queue_time"))
        .percentiles(50).detailed(false).build();
    JsonNode json = new ObjectMapper().readTree(VllmResultJson.toJson(run(), o));

    List<Double> starts = new ArrayList<>();
    json.get("queue_times").forEach(n -> starts.add(n.asDouble()));
    assertThat(starts).hasSize(json.get("latencies").size());
    assertThat(json.has("ttfts")).as("without --save-detailed, as vLLM").isFalse();
    assertThat(json.has("start_times")).isFalse();
    assertThat(json.has("mean_client_queue_time_ms")).isTrue();
    assertThat(json.has("mean_e2el_including_client_queue_ms")).as("only for a finite rate").isFalse();
    assertThat(json.get("rtfx").asDouble()).isZero();
  }

  @Test
  void goodputCountsRequestsMeetingEveryObjective() {
    RunResult run = TestRuns.run(List.of(chatStream(0), chatStream(1), failed(2)));

    Map<String, Object> met = VllmResultJson.result(run, options().goodput(Map.of("ttft", 10.0, "tpot", 17.5)).build());
    Map<String, Object> missed = VllmResultJson.result(run, options().goodput(Map.of("e2el", 44.0)).build());

    double duration = (Double) met.get("duration");
    assertThat((Double) met.get("request_goodput")).isCloseTo(2 / duration, within(1e-9));
    assertThat((Double) missed.get("request_goodput")).isZero();
  }

  @Test
  void emptyStatisticsAreZeroAsInVllmAndBadOptionsAreRefused() {
    Map<String, Object> r = VllmResultJson.result(TestRuns.run(List.of(failed(0))), options().build());
    assertThat(r.get("mean_ttft_ms")).isEqualTo(0.0);
    assertThat(r.get("p99_itl_ms")).isEqualTo(0.0);

    assertThatThrownBy(() -> options().metrics(List.of("ttfb"))).hasMessageContaining("unknown metric 'ttfb'");
    assertThatThrownBy(() -> options().percentiles(101)).hasMessageContaining("[0, 100]");
    assertThatThrownBy(() -> options().goodput(Map.of("itl", 1.0))).hasMessageContaining("ttft, tpot or e2el");
  }
}
