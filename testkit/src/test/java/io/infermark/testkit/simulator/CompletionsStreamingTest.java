package io.infermark.testkit.simulator;

import static io.infermark.testkit.simulator.SimHttp.PROMPT_TOKENS;
import static io.infermark.testkit.simulator.SimHttp.completion;
import static io.infermark.testkit.simulator.SimHttp.events;
import static io.infermark.testkit.simulator.SimHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.infermark.testkit.junit.InjectSimulator;
import io.infermark.testkit.junit.SimulatorExtension;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class CompletionsStreamingTest {

  private static final long SEED = 3;

  @RegisterExtension
  final SimulatorExtension simulator = SimulatorExtension.withConfig(
      SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
        .interTokenInterval(Duration.ofMillis(1)).defaultOutputTokens(16).seed(SEED).build());

  @InjectSimulator
  private Simulator sim;
  private SimHttp http;

  @BeforeEach
  void start() {
    http = new SimHttp(sim);
  }

  @Test
  void streamIsTextChunksWithNullUsageThenUsageChunkThenDone() throws IOException {
    HttpResponse<String> response = http.post("/v1/completions",
        completion("\"stream\":true,\"max_tokens\":5,\"stream_options\":{\"include_usage\":true}"));

    List<String> events = events(response.body());
    assertThat(events).hasSize(5 + 1 + 1);
    JsonNode first = json(events.get(0));
    String id = first.get("id").asText();
    assertThat(id).matches("cmpl-[0-9a-f]{32}");
    String header = "{\"id\":\"" + id + "\",\"object\":\"text_completion\",\"created\":"
        + first.get("created").asLong() + ",\"model\":\"infermark-sim\",";
    for (int i = 0; i < 5; i++) {
      assertThat(events.get(i)).isEqualTo(header + "\"choices\":[{\"index\":0,\"text\":\""
          + OutputVocabulary.token(SEED, i) + "\",\"logprobs\":null,\"finish_reason\":"
          + (i == 4 ? "\"length\"" : "null") + ",\"stop_reason\":null}],\"usage\":null}");
    }
    assertThat(events.get(5)).isEqualTo(header + "\"choices\":[],\"usage\":{\"prompt_tokens\":" + PROMPT_TOKENS
        + ",\"total_tokens\":" + (PROMPT_TOKENS + 5) + ",\"completion_tokens\":5}}");
    assertThat(events.get(6)).isEqualTo("[DONE]");
  }

  @Test
  void continuousUsageReplacesTheNullUsageOnEveryChunk() throws IOException {
    HttpResponse<String> response = http.post("/v1/completions", completion("\"stream\":true,"
        + "\"max_tokens\":3,\"stream_options\":{\"include_usage\":true,\"continuous_usage_stats\":true}"));

    List<String> events = events(response.body());
    assertThat(events.subList(0, 4)).extracting(e -> json(e).at("/usage/completion_tokens").asInt())
        .containsExactly(1, 2, 3, 3);
  }

  @Test
  void promptMayBeAnArrayOfOneString() throws IOException {
    HttpResponse<String> response = http.post("/v1/completions",
        "{\"prompt\":[\"one two three\"],\"max_tokens\":2}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response.body()).at("/usage/prompt_tokens").asInt()).isEqualTo(3);
  }
}
