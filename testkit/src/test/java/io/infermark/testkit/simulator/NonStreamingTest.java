package io.infermark.testkit.simulator;

import static io.infermark.testkit.simulator.SimHttp.PROMPT_TOKENS;
import static io.infermark.testkit.simulator.SimHttp.chat;
import static io.infermark.testkit.simulator.SimHttp.completion;
import static io.infermark.testkit.simulator.SimHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.infermark.testkit.junit.InjectSimulator;
import io.infermark.testkit.junit.SimulatorExtension;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class NonStreamingTest {

  private static final long SEED = 99;

  @RegisterExtension
  final SimulatorExtension simulator = SimulatorExtension.withConfig(
      SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(2))
        .interTokenInterval(Duration.ofMillis(1)).defaultOutputTokens(6).seed(SEED).build());

  @InjectSimulator
  private Simulator sim;
  private SimHttp http;

  @BeforeEach
  void start() {
    http = new SimHttp(sim);
  }

  @Test
  void chatAnswersOneCompletionObjectWithUsage() throws IOException {
    HttpResponse<String> response = http.post("/v1/chat/completions", chat("\"max_tokens\":4"));

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    JsonNode body = json(response.body());
    assertThat(response.body()).isEqualTo("{\"id\":\"" + body.get("id").asText()
        + "\",\"object\":\"chat.completion\",\"created\":" + body.get("created").asLong()
        + ",\"model\":\"infermark-sim\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
        + "\"content\":\"" + OutputVocabulary.text(SEED, 4) + "\"},\"logprobs\":null,"
        + "\"finish_reason\":\"length\",\"stop_reason\":null}],\"usage\":{\"prompt_tokens\":" + PROMPT_TOKENS
        + ",\"total_tokens\":" + (PROMPT_TOKENS + 4) + ",\"completion_tokens\":4}}");
  }

  @Test
  void completionsAnswerOneTextCompletionWithUsage() throws IOException {
    HttpResponse<String> response = http.post("/v1/completions", completion(""));

    JsonNode body = json(response.body());
    assertThat(body.get("object").asText()).isEqualTo("text_completion");
    assertThat(body.at("/choices/0/text").asText()).isEqualTo(OutputVocabulary.text(SEED, 6));
    assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
    assertThat(body.at("/usage/completion_tokens").asInt()).isEqualTo(6);
    assertThat(body.at("/usage/prompt_tokens").asInt()).isEqualTo(PROMPT_TOKENS);
  }

  @Test
  void allTokensOfANonStreamedResponseAreWrittenTogetherAfterTheLastIsGenerated() throws IOException {
    http.post("/v1/chat/completions", chat("\"max_tokens\":5"), "X-Request-Id", "whole");

    ServerTimeline t = sim.timeline("whole").orElseThrow();
    assertThat(t.streaming()).isFalse();
    assertThat(t.tokenCount()).isEqualTo(5);
    assertThat(t.tokenNanos()).containsOnly(t.tokenNanos(0));
    long lastDue = t.admissionNanos().getAsLong() + Duration.ofMillis(2 + 4).toNanos();
    assertThat(t.tokenNanos(0)).isGreaterThanOrEqualTo(lastDue);
  }

  @Test
  void chatCountsTextPartsOfStructuredContentAndChargesAnImageByUrlItsFixedCost() throws IOException {
    HttpResponse<String> response = http.post("/v1/chat/completions", "{\"messages\":["
        + "{\"role\":\"system\",\"content\":\"Be brief.\"},"
        + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"two words\"},"
        + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"http://x/y.png\"}}]},"
        + "{\"role\":\"assistant\",\"content\":null}]}");

    // "Be brief." 3, "two words" 2, an image of unknown size 765 (MediaTokens.UNKNOWN_SIZE_IMAGE_TOKENS).
    assertThat(json(response.body()).at("/usage/prompt_tokens").asInt()).isEqualTo(3 + 2 + 765);
  }
}
