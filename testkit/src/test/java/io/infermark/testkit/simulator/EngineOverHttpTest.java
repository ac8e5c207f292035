package io.infermark.testkit.simulator;

import static io.infermark.testkit.simulator.SimHttp.chat;
import static io.infermark.testkit.simulator.SimHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The continuous-batching engine behind the HTTP server, in real time, checked against its cost model. */
class EngineOverHttpTest {

  private Simulator sim;
  private SimHttp http;

  private void start(SimulatorConfig config) {
    sim = Simulator.start(config);
    http = new SimHttp(sim);
  }

  @AfterEach
  void close() {
    if (sim != null) {
      sim.close();
    }
  }

  /** A chat body whose prompt is {@code n} tokens: w0 w1 ... */
  private static String prompt(int n, String extra) {
    String words = IntStream.range(0, n).mapToObj(i -> "w" + i).collect(Collectors.joining(" "));
    return "{\"messages\":[{\"role\":\"user\",\"content\":\"" + words + "\"}]," + extra + "}";
  }

  private ServerTimeline post(String id, String body) throws IOException {
    HttpResponse<String> response = http.post("/v1/chat/completions", body, "X-Request-Id", id);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return sim.timeline(id).orElseThrow();
  }

  @Test
  void prefillAndDecodeStepsLastWhatTheCostModelSays() throws IOException {
    start(SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).build());

    ServerTimeline t = post("a", prompt(100, "\"stream\":true,\"max_tokens\":6,\"ignore_eos\":true"));

    SequenceTimeline engine = t.engine().orElseThrow();
    // 2.3 + 2.3 + 0.0223*100 + 6.5e-7*100^2 = 6.8365 ms, however late the thread woke
    assertThat(engine.prefillEndNanos().getAsLong() - engine.prefillStartNanos().getAsLong()).isEqualTo(6_836_500);
    assertThat(engine.prefillStartNanos().getAsLong()).isGreaterThanOrEqualTo(t.arrivalNanos());
    long[] expectedGaps = {6_485_300, 6_485_329, 6_485_358, 6_485_387, 6_485_416}; // context 100..104
    int exact = 0;
    for (int i = 1; i < 6; i++) {
      long gap = engine.tokenNanos(i) - engine.tokenNanos(i - 1);
      assertThat(gap).isGreaterThanOrEqualTo(expectedGaps[i - 1]);
      exact += gap == expectedGaps[i - 1] ? 1 : 0;
    }
    assertThat(exact).as("steps back to back on absolute deadlines").isGreaterThanOrEqualTo(3);
    for (int i = 0; i < 6; i++) {
      assertThat(t.tokenNanos(i)).as("token %d written after it was ready", i)
          .isGreaterThanOrEqualTo(engine.tokenNanos(i));
    }
    assertThat(t.prefillEndNanos()).isEqualTo(engine.prefillEndNanos());
  }

  @Test
  void aRepeatedPromptHitsThePrefixCacheAndSkipsThatPrefill() throws IOException {
    start(SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).build());
    String body = prompt(600, "\"max_tokens\":2,\"ignore_eos\":true");

    ServerTimeline first = post("first", body);
    ServerTimeline second = post("second", body);

    assertThat(first.engine().orElseThrow().cachedPromptTokens()).isZero();
    assertThat(second.engine().orElseThrow().cachedPromptTokens()).isEqualTo(592); // 37 blocks of 599 tokens
    assertThat(prefill(first)).isEqualTo(18_214_000); // 4.6 + 0.0223*600 + 6.5e-7*600^2 ms
    assertThat(prefill(second)).isEqualTo(4_784_598); // 4.6 + 0.0223*8 + 6.5e-7*(8^2 + 2*8*592) ms
    EngineStats stats = sim.engineStats();
    assertThat(stats.prefixHitTokens()).isEqualTo(592);
    assertThat(stats.prefixQueryTokens()).isEqualTo(1200);
  }

  private static long prefill(ServerTimeline t) {
    return t.prefillEndNanos().getAsLong() - t.prefillStartNanos().getAsLong();
  }

  @Test
  void metricsUseVllmNamesAndAddUp() throws IOException {
    start(SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).build());
    for (int i = 0; i < 3; i++) {
      post("m" + i, chat("\"stream\":true,\"max_tokens\":4,\"ignore_eos\":true"));
    }
    post("m3", chat("\"max_tokens\":2")); // stops naturally? no: natural length 64 > 2, so "length"

    // The client has a response's last byte before the engine retires its sequence at the end of that step:
    // read the metrics once the engine has nothing running (bounded; the last step is a few ms away).
    String model = "model_name=\"infermark-sim\"";
    HttpResponse<String> response = http.get("/metrics");
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (parse(response.body()).get("vllm:num_requests_running{" + model + "}") != 0.0
        && System.nanoTime() - deadline < 0) {
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
      response = http.get("/metrics");
    }

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(v -> v.startsWith("text/plain"));
    Map<String, Double> m = parse(response.body());
    assertThat(m.get("vllm:generation_tokens_total{" + model + "}")).isEqualTo(14.0);
    assertThat(m.get("vllm:prompt_tokens_total{" + model + "}")).isEqualTo(4.0 * SimHttp.PROMPT_TOKENS);
    assertThat(m.get("vllm:request_success_total{finished_reason=\"length\"," + model + "}")).isEqualTo(4.0);
    assertThat(m.get("vllm:num_requests_running{" + model + "}")).isEqualTo(0.0);
    assertThat(m.get("vllm:num_requests_waiting{" + model + "}")).isEqualTo(0.0);
    assertThat(m.get("vllm:kv_cache_usage_perc{" + model + "}")).isEqualTo(0.0);
    assertThat(m.get("vllm:num_preemptions_total{" + model + "}")).isEqualTo(0.0);
    assertThat(m.get("vllm:time_to_first_token_seconds_count{" + model + "}")).isEqualTo(4.0);
    assertThat(m.get("vllm:time_to_first_token_seconds_bucket{le=\"+Inf\"," + model + "}")).isEqualTo(4.0);
    double ttftSum = sim.timelines().stream().mapToLong(t -> t.timeToFirstTokenNanos().getAsLong()).sum() / 1e9;
    assertThat(m.get("vllm:time_to_first_token_seconds_sum{" + model + "}")).isCloseTo(ttftSum,
        org.assertj.core.api.Assertions.within(1e-9));
    assertThat(m.get("vllm:prefix_cache_queries_total{" + model + "}")).isEqualTo(4.0 * SimHttp.PROMPT_TOKENS);
    assertThat(response.body()).contains("# TYPE vllm:time_to_first_token_seconds histogram\n",
        "# TYPE vllm:num_requests_running gauge\n", "# TYPE vllm:generation_tokens_total counter\n");
    // Buckets are cumulative.
    double previous = 0;
    for (double le : ServerMetrics.TTFT_BUCKETS) {
      double count = m.get("vllm:time_to_first_token_seconds_bucket{le=\"" + le + "\"," + model + "}");
      assertThat(count).isGreaterThanOrEqualTo(previous);
      previous = count;
    }
  }

  private static Map<String, Double> parse(String exposition) {
    Map<String, Double> values = new HashMap<>();
    for (String line : exposition.split("\n")) {
      if (!line.startsWith("#") && !line.isBlank()) {
        int space = line.lastIndexOf(' ');
        values.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
      }
    }
    return values;
  }

  @Test
  void kvPressureOverHttpPreemptsAndShowsInTimelinesAndMetrics() throws Exception {
    EngineProfile tight = EngineProfile.nearZeroCost().toBuilder().kvCacheBlocks(8).build();
    start(SimulatorConfig.builder().engine(tight).build());
    List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      responses.add(new SimHttp(sim).sendAsyncChat("p" + i, chat("\"max_tokens\":110,\"ignore_eos\":true")));
    }
    for (var r : responses) {
      assertThat(r.get(20, java.util.concurrent.TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    // Each sequence alone grows to 5 + 110 tokens = 8 blocks, the whole cache: any overlap preempts.
    assertThat(sim.engineStats().preemptions()).isPositive();
    long preemptedInTimelines = sim.timelines().stream().mapToLong(t -> t.preemptionNanos().length).sum();
    assertThat(preemptedInTimelines).isEqualTo(sim.engineStats().preemptions());
    assertThat(sim.timelines()).allSatisfy(t -> assertThat(t.tokenCount()).isEqualTo(110));
    Map<String, Double> m = parse(http.get("/metrics").body());
    assertThat(m.get("vllm:num_preemptions_total{model_name=\"infermark-sim\"}"))
        .isEqualTo((double) sim.engineStats().preemptions());
  }

  @Test
  void timelinesEndpointServesTheGroundTruth() throws IOException {
    start(SimulatorConfig.builder().engine(EngineProfile.nearZeroCost()).build());
    ServerTimeline t = post("gt-1", chat("\"stream\":true,\"max_tokens\":3,\"ignore_eos\":true"));
    post("gt-2", chat("\"max_tokens\":2,\"ignore_eos\":true"));

    JsonNode list = json(http.get("/simulator/timelines").body());
    assertThat(list.get("count").asInt()).isEqualTo(2);
    assertThat(list.get("timelines").get(0).get("request_id").asText()).isEqualTo("gt-1");
    assertThat(list.get("timelines").get(0).has("token_nanos")).isFalse();

    JsonNode one = json(http.get("/simulator/timelines/gt-1").body());
    assertThat(one.get("outcome").asText()).isEqualTo("completed");
    assertThat(one.get("prompt_tokens").asInt()).isEqualTo(SimHttp.PROMPT_TOKENS);
    assertThat(one.get("arrival_nanos").asLong()).isEqualTo(t.arrivalNanos());
    assertThat(one.get("first_token_nanos").asLong()).isEqualTo(t.firstTokenNanos().getAsLong());
    assertThat(one.get("prefill_end_nanos").asLong()).isEqualTo(t.prefillEndNanos().getAsLong());
    for (int i = 0; i < 3; i++) {
      assertThat(one.get("token_nanos").get(i).asLong()).isEqualTo(t.tokenNanos(i));
      assertThat(one.get("token_ms").get(i).asDouble()).isEqualTo((t.tokenNanos(i) - t.arrivalNanos()) / 1e6);
    }
    HttpResponse<String> missing = http.get("/simulator/timelines/nope");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(json(missing.body()).get("error").get("message").asText()).contains("'nope'");
  }

  @Test
  void timelinesSinceListsOnlyRequestsFromThatSequenceOnWithTheNextSequence() throws IOException {
    start(SimulatorConfig.builder().timeToFirstToken(java.time.Duration.ZERO)
        .interTokenInterval(java.time.Duration.ZERO).build());
    post("old-0", chat("\"stream\":true,\"max_tokens\":1"));
    post("old-1", chat("\"stream\":true,\"max_tokens\":1"));
    long next = json(http.get("/simulator/timelines?since=" + Long.MAX_VALUE).body()).get("next_sequence").asLong();
    post("new-0", chat("\"stream\":true,\"max_tokens\":2"));
    post("new-1", chat("\"max_tokens\":2"));

    JsonNode list = json(http.get("/simulator/timelines?since=" + next).body());

    assertThat(next).isEqualTo(2);
    assertThat(list.get("count").asInt()).isEqualTo(2);
    assertThat(list.get("next_sequence").asLong()).isEqualTo(4);
    assertThat(list.get("timelines").findValuesAsText("request_id")).containsExactly("new-0", "new-1");
    assertThat(json(http.get("/simulator/timelines").body()).get("count").asInt()).isEqualTo(4);
    HttpResponse<String> bad = http.get("/simulator/timelines?since=yesterday");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(json(bad.body()).get("error").get("message").asText()).contains("since='yesterday'");
  }

  @Test
  void retentionKeepsOnlyTheLatestTimelines() throws IOException {
    start(SimulatorConfig.builder().timelineRetention(3).timeToFirstToken(java.time.Duration.ZERO)
        .interTokenInterval(java.time.Duration.ZERO).build());
    for (int i = 0; i < 5; i++) {
      post("k" + i, chat("\"max_tokens\":1"));
    }

    assertThat(sim.timelines()).extracting(ServerTimeline::requestId).containsExactly("k2", "k3", "k4");
    assertThat(sim.timeline("k0")).isEmpty();
    assertThat(json(http.get("/simulator/timelines").body()).get("dropped").asInt()).isEqualTo(2);
  }

  @Test
  void promptPlusMaxTokensPastTheContextOrTheCacheIs400() throws IOException {
    start(SimulatorConfig.builder().maxModelLength(100)
        .engine(EngineProfile.llama8bH200().toBuilder().kvCacheBlocks(2).build()).build());

    HttpResponse<String> overContext = http.post("/v1/chat/completions", chat("\"max_tokens\":96"));
    assertThat(overContext.statusCode()).isEqualTo(400);
    JsonNode error = json(overContext.body()).get("error");
    assertThat(error.get("param").asText()).isEqualTo("max_tokens");
    assertThat(error.get("message").asText()).isEqualTo("This model's maximum context length is 100 tokens. "
        + "However, you requested 101 tokens (5 in the messages, 96 in the completion). Please reduce the length "
        + "of the messages or completion.");

    HttpResponse<String> overCache = http.post("/v1/chat/completions", chat("\"max_tokens\":40"));
    assertThat(overCache.statusCode()).isEqualTo(400);
    assertThat(json(overCache.body()).get("error").get("message").asText())
        .contains("needs 3 KV blocks but the cache has 2");
    assertThat(http.post("/v1/chat/completions", chat("\"max_tokens\":20")).statusCode()).isEqualTo(200);
  }

  @Test
  void reasoningTokensComeFirstAsReasoningContent() throws IOException {
    start(SimulatorConfig.builder().reasoningTokens(3).timeToFirstToken(java.time.Duration.ZERO)
        .interTokenInterval(java.time.Duration.ZERO).tokensPerChunk(2).build());

    List<String> events = SimHttp.events(http.post("/v1/chat/completions",
        chat("\"stream\":true,\"max_tokens\":6,\"ignore_eos\":true")).body());
    // role, reasoning [0,2), reasoning [2,3), content [3,5), content [5,6), [DONE]
    assertThat(events).hasSize(6);
    assertThat(json(events.get(1)).at("/choices/0/delta/reasoning_content").asText())
        .isEqualTo(OutputVocabulary.text(0, 0, 2));
    assertThat(json(events.get(2)).at("/choices/0/delta/reasoning_content").asText())
        .isEqualTo(OutputVocabulary.text(0, 2, 3));
    assertThat(json(events.get(2)).at("/choices/0/delta").has("content")).isFalse();
    assertThat(json(events.get(3)).at("/choices/0/delta/content").asText()).isEqualTo(OutputVocabulary.text(0, 3, 5));

    JsonNode whole = json(http.post("/v1/chat/completions", chat("\"max_tokens\":6,\"ignore_eos\":true")).body());
    assertThat(whole.at("/choices/0/message/reasoning_content").asText()).isEqualTo(OutputVocabulary.text(0, 0, 3));
    assertThat(whole.at("/choices/0/message/content").asText()).isEqualTo(OutputVocabulary.text(0, 3, 6));
  }

  @Test
  void naturalOutputLengthsAreDrawnFromTheRangeBySeed() throws IOException {
    SimulatorConfig config = SimulatorConfig.builder().outputTokensBetween(5, 12).seed(4)
        .timeToFirstToken(java.time.Duration.ZERO).interTokenInterval(java.time.Duration.ZERO).build();
    start(config);
    List<Integer> lengths = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      JsonNode body = json(http.post("/v1/chat/completions", chat("")).body());
      int n = body.at("/usage/completion_tokens").asInt();
      assertThat(n).isEqualTo(config.naturalOutputTokens(i));
      assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
      lengths.add(n);
    }
    assertThat(lengths).allSatisfy(n -> assertThat(n).isBetween(5, 12));
    assertThat(lengths.stream().distinct().count()).isGreaterThan(4);
  }
}
