package io.infermark.testkit.simulator;

import static io.infermark.testkit.simulator.SimHttp.PROMPT_TOKENS;
import static io.infermark.testkit.simulator.SimHttp.chat;
import static io.infermark.testkit.simulator.SimHttp.events;
import static io.infermark.testkit.simulator.SimHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ChatStreamingTest {

  private static final long SEED = 17;

  private Simulator sim;
  private SimHttp http;

  private void start(SimulatorConfig.Builder config) {
    sim = Simulator.start(config.timeToFirstToken(Duration.ofMillis(1))
        .interTokenInterval(Duration.ofMillis(1)).seed(SEED).build());
    http = new SimHttp(sim);
  }

  @AfterEach
  void close() {
    if (sim != null) {
      sim.close();
    }
  }

  private List<String> stream(String body) throws IOException {
    HttpResponse<String> response = http.post("/v1/chat/completions", body);
    assertThat(response.statusCode()).isEqualTo(200);
    return events(response.body());
  }

  @Test
  void streamIsRoleChunkThenContentThenUsageChunkThenDone() throws IOException {
    start(SimulatorConfig.builder().defaultOutputTokens(64));

    List<String> events = stream(chat("\"stream\":true,\"max_tokens\":4,"
        + "\"stream_options\":{\"include_usage\":true}"));

    assertThat(events).hasSize(7);
    JsonNode first = json(events.get(0));
    String id = first.get("id").asText();
    long created = first.get("created").asLong();
    String header = "{\"id\":\"" + id + "\",\"object\":\"chat.completion.chunk\",\"created\":" + created
        + ",\"model\":\"infermark-sim\",";
    assertThat(id).matches("chatcmpl-[0-9a-f]{32}");
    assertThat(events.get(0)).isEqualTo(header + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
        + "\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}");
    for (int i = 0; i < 3; i++) {
      assertThat(events.get(1 + i)).isEqualTo(header + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
          + OutputVocabulary.token(SEED, i) + "\"},\"logprobs\":null,\"finish_reason\":null}]}");
    }
    assertThat(events.get(4)).isEqualTo(header + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
        + OutputVocabulary.token(SEED, 3) + "\"},\"logprobs\":null,\"finish_reason\":\"length\","
        + "\"stop_reason\":null}]}");
    assertThat(events.get(5)).isEqualTo(header + "\"choices\":[],\"usage\":{\"prompt_tokens\":" + PROMPT_TOKENS
        + ",\"total_tokens\":" + (PROMPT_TOKENS + 4) + ",\"completion_tokens\":4}}");
    assertThat(events.get(6)).isEqualTo("[DONE]");
  }

  @Test
  void streamHasEventStreamContentTypeAndNoUsageChunkUnlessAsked() throws IOException {
    start(SimulatorConfig.builder().defaultOutputTokens(3));

    HttpResponse<String> response = http.post("/v1/chat/completions", chat("\"stream\":true"));

    assertThat(response.headers().firstValue("Content-Type")).hasValue("text/event-stream; charset=utf-8");
    List<String> events = events(response.body());
    assertThat(events).hasSize(1 + 3 + 1).last().isEqualTo("[DONE]");
    assertThat(events).noneMatch(e -> e.contains("usage"));
  }

  @Test
  void ignoreEosGeneratesExactlyMaxTokensPastTheNaturalLength() throws IOException {
    start(SimulatorConfig.builder().defaultOutputTokens(8));

    List<String> events = stream(chat("\"stream\":true,\"max_tokens\":20,\"ignore_eos\":true,"
        + "\"stream_options\":{\"include_usage\":true}"));

    List<JsonNode> content = contentChunks(events);
    assertThat(content).hasSize(20);
    assertThat(text(content)).isEqualTo(OutputVocabulary.text(SEED, 20));
    assertThat(content.get(19).at("/choices/0/finish_reason").asText()).isEqualTo("length");
    assertThat(json(events.get(events.size() - 2)).at("/usage/completion_tokens").asInt()).isEqualTo(20);
  }

  @Test
  void withoutIgnoreEosGenerationStopsAtTheNaturalLength() throws IOException {
    start(SimulatorConfig.builder().defaultOutputTokens(8));

    List<JsonNode> capped = contentChunks(stream(chat("\"stream\":true,\"max_tokens\":20")));
    List<JsonNode> unlimited = contentChunks(stream(chat("\"stream\":true")));
    List<JsonNode> limited = contentChunks(stream(chat("\"stream\":true,\"max_tokens\":5")));

    assertThat(capped).hasSize(8);
    assertThat(capped.get(7).at("/choices/0/finish_reason").asText()).isEqualTo("stop");
    assertThat(unlimited).hasSize(8);
    assertThat(unlimited.get(7).at("/choices/0/finish_reason").asText()).isEqualTo("stop");
    assertThat(limited).hasSize(5);
    assertThat(limited.get(4).at("/choices/0/finish_reason").asText()).isEqualTo("length");
  }

  @Test
  void maxCompletionTokensOverridesMaxTokens() throws IOException {
    start(SimulatorConfig.builder().defaultOutputTokens(64));

    List<JsonNode> content = contentChunks(stream(chat("\"stream\":true,\"max_tokens\":9,"
        + "\"max_completion_tokens\":3")));

    assertThat(content).hasSize(3);
  }

  @Test
  void continuousUsageStatsPutCumulativeUsageOnEveryChunk() throws IOException {
    start(SimulatorConfig.builder().defaultOutputTokens(5));

    List<String> events = stream(chat("\"stream\":true,\"stream_options\":{\"include_usage\":true,"
        + "\"continuous_usage_stats\":true}"));

    // role chunk, 5 content chunks, usage chunk, [DONE]
    assertThat(events).hasSize(8);
    List<Integer> completion = events.subList(0, 7).stream()
        .map(e -> json(e).at("/usage/completion_tokens").asInt(-1)).collect(Collectors.toList());
    assertThat(completion).containsExactly(0, 1, 2, 3, 4, 5, 5);
    for (String e : events.subList(0, 7)) {
      JsonNode usage = json(e).get("usage");
      assertThat(usage.get("prompt_tokens").asInt()).isEqualTo(PROMPT_TOKENS);
      assertThat(usage.get("total_tokens").asInt())
          .isEqualTo(PROMPT_TOKENS + usage.get("completion_tokens").asInt());
    }
  }

  @Test
  void continuousUsageStatsNeedIncludeUsageAsInVllm() throws IOException {
    start(SimulatorConfig.builder().defaultOutputTokens(2));

    List<String> events = stream(chat("\"stream\":true,\"stream_options\":{\"continuous_usage_stats\":true}"));

    assertThat(events).hasSize(4).noneMatch(e -> e.contains("usage"));
  }

  @Test
  void tokensPerChunkGroupsTokensAndTheLastChunkTakesTheRest() throws IOException {
    start(SimulatorConfig.builder().defaultOutputTokens(7).tokensPerChunk(3));

    List<JsonNode> content = contentChunks(stream(chat("\"stream\":true,"
        + "\"stream_options\":{\"include_usage\":true,\"continuous_usage_stats\":true}")));

    assertThat(content).extracting(c -> c.at("/choices/0/delta/content").asText()).containsExactly(
        OutputVocabulary.text(SEED, 3), OutputVocabulary.text(SEED, 6).substring(OutputVocabulary.text(SEED, 3).length()),
        OutputVocabulary.token(SEED, 6));
    assertThat(content).extracting(c -> c.at("/usage/completion_tokens").asInt()).containsExactly(3, 6, 7);
  }

  @Test
  void clientRequestIdIsEchoedAndKeysTheTimeline() throws IOException {
    start(SimulatorConfig.builder().defaultOutputTokens(2));

    HttpResponse<String> response = http.post("/v1/chat/completions", chat("\"stream\":true"),
        "X-Request-Id", "req-abc");

    assertThat(response.headers().firstValue("X-Request-Id")).hasValue("req-abc");
    ServerTimeline timeline = sim.timeline("req-abc").orElseThrow();
    assertThat(timeline.outcome()).isEqualTo(ServerTimeline.Outcome.COMPLETED);
    assertThat(timeline.tokenCount()).isEqualTo(2);
    assertThat(timeline.promptTokens()).hasValue(PROMPT_TOKENS);
    assertThat(timeline.streaming()).isTrue();
    assertThat(timeline.endpoint()).isEqualTo("/v1/chat/completions");
  }

  @Test
  void missingRequestIdIsGeneratedFromTheSequenceNumber() throws IOException {
    start(SimulatorConfig.builder().defaultOutputTokens(1));

    http.post("/v1/chat/completions", chat("\"stream\":true"));
    HttpResponse<String> second = http.post("/v1/chat/completions", chat("\"stream\":true"));

    assertThat(second.headers().firstValue("X-Request-Id")).hasValue("sim-1");
    assertThat(sim.timeline("sim-1").orElseThrow().sequence()).isEqualTo(1);
    assertThat(sim.timelines()).extracting(ServerTimeline::requestId).containsExactly("sim-0", "sim-1");
    assertThat(sim.requestCount()).isEqualTo(2);
  }

  @Test
  void responseIsVisibleInSimulatorStateAsSoonAsTheClientHasReadIt() throws IOException {
    start(SimulatorConfig.builder().defaultOutputTokens(3));

    for (int i = 0; i < 20; i++) {
      http.post("/v1/chat/completions", chat("\"stream\":true"), "X-Request-Id", "r" + i);
      assertThat(sim.timeline("r" + i)).isPresent();
      assertThat(sim.inFlight()).isZero();
      assertThat(sim.running()).isZero();
    }
  }

  static List<JsonNode> contentChunks(List<String> events) {
    return events.stream().filter(e -> !e.equals("[DONE]")).map(SimHttp::json)
        .filter(j -> j.path("choices").size() == 1 && j.at("/choices/0/delta/role").isMissingNode())
        .collect(Collectors.toList());
  }

  static String text(List<JsonNode> contentChunks) {
    return contentChunks.stream().map(c -> c.at("/choices/0/delta/content").asText())
        .collect(Collectors.joining());
  }

  @Test
  void timelineIsPublishedBeforeTheClientCanReadDone() throws IOException {
    start(SimulatorConfig.builder());
    for (int i = 0; i < 30; i++) {
      String id = "before-done-" + i;
      HttpResponse<java.io.InputStream> response = http.open("/v1/chat/completions",
          chat("\"stream\":true,\"max_tokens\":2,\"ignore_eos\":true,\"stream_options\":{\"include_usage\":true}"),
          "X-Request-Id", id);
      try (java.io.BufferedReader lines = new java.io.BufferedReader(
          new java.io.InputStreamReader(response.body(), java.nio.charset.StandardCharsets.UTF_8))) {
        String line;
        while ((line = lines.readLine()) != null && !line.equals("data: [DONE]")) {
          // read up to [DONE] and stop there, as a client that completes on [DONE] does
        }
        assertThat(line).isEqualTo("data: [DONE]");
        // No waiting: the timeline must already be there.
        assertThat(sim.timeline(id)).as("timeline of %s right after [DONE]", id).isPresent()
            .get().extracting(ServerTimeline::outcome).isEqualTo(ServerTimeline.Outcome.COMPLETED);
      }
    }
  }
}
