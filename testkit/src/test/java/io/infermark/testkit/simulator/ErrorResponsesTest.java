package io.infermark.testkit.simulator;

import static io.infermark.testkit.simulator.SimHttp.chat;
import static io.infermark.testkit.simulator.SimHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.infermark.testkit.junit.InjectSimulator;
import io.infermark.testkit.junit.SimulatorExtension;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ErrorResponsesTest {

  @RegisterExtension
  final SimulatorExtension simulator = SimulatorExtension.withConfig(
      SimulatorConfig.builder().timeToFirstToken(Duration.ZERO)
        .interTokenInterval(Duration.ZERO).defaultOutputTokens(2).build());

  @InjectSimulator
  private Simulator sim;
  private SimHttp http;

  @BeforeEach
  void start() {
    http = new SimHttp(sim);
  }

  private static void assertError(HttpResponse<String> response, int status, String type, String param,
      String messageFragment) {
    assertThat(response.statusCode()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    JsonNode error = json(response.body()).get("error");
    assertThat(error).isNotNull();
    assertThat(error.fieldNames()).toIterable().containsExactly("message", "type", "param", "code");
    assertThat(error.get("type").asText()).isEqualTo(type);
    assertThat(error.get("code").asInt()).isEqualTo(status);
    if (param == null) {
      assertThat(error.get("param").isNull()).isTrue();
    } else {
      assertThat(error.get("param").asText()).isEqualTo(param);
    }
    assertThat(error.get("message").asText()).contains(messageFragment);
  }

  @Test
  void malformedJsonIs400() throws IOException {
    assertError(http.post("/v1/chat/completions", "{\"messages\": ["), 400, "BadRequestError", null,
        "not valid JSON");
  }

  @Test
  void emptyOrNonObjectBodyIs400() throws IOException {
    assertError(http.post("/v1/completions", ""), 400, "BadRequestError", null, "body is empty");
    assertError(http.post("/v1/completions", "[1,2]"), 400, "BadRequestError", null, "must be a JSON object");
  }

  @Test
  void missingOrEmptyMessagesIs400() throws IOException {
    assertError(http.post("/v1/chat/completions", "{\"model\":\"infermark-sim\"}"), 400, "BadRequestError",
        "messages", "messages is required");
    assertError(http.post("/v1/chat/completions", "{\"messages\":[]}"), 400, "BadRequestError",
        "messages", "non-empty array");
    assertError(http.post("/v1/chat/completions", "{\"messages\":[{\"content\":\"no role\"}]}"), 400,
        "BadRequestError", "messages", "string role");
  }

  @Test
  void missingPromptIs400() throws IOException {
    assertError(http.post("/v1/completions", "{\"max_tokens\":3}"), 400, "BadRequestError", "prompt",
        "prompt is required");
    assertError(http.post("/v1/completions", "{\"prompt\":[1,2,3]}"), 400, "BadRequestError", "prompt",
        "token-id prompts are not simulated");
  }

  @Test
  void maxTokensBelowOneOrNotAnIntegerIs400() throws IOException {
    assertError(http.post("/v1/chat/completions", chat("\"max_tokens\":0")), 400, "BadRequestError",
        "max_tokens", "max_tokens must be at least 1, was 0");
    assertError(http.post("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":-3}"), 400, "BadRequestError",
        "max_tokens", "was -3");
    assertError(http.post("/v1/chat/completions", chat("\"max_tokens\":2.5")), 400, "BadRequestError",
        "max_tokens", "must be an integer");
    assertError(http.post("/v1/chat/completions", chat("\"max_completion_tokens\":0")), 400,
        "BadRequestError", "max_completion_tokens", "at least 1");
  }

  @Test
  void wronglyTypedOrUnsupportedFieldsAre400() throws IOException {
    assertError(http.post("/v1/chat/completions", chat("\"stream\":\"yes\"")), 400, "BadRequestError",
        "stream", "must be a boolean");
    assertError(http.post("/v1/chat/completions", chat("\"stream_options\":{\"include_usage\":true}")), 400,
        "BadRequestError", "stream_options", "only be set when stream is true");
    assertError(http.post("/v1/chat/completions", chat("\"n\":2")), 400, "BadRequestError", "n",
        "only supports n=1");
  }

  @Test
  void unknownModelIs404() throws IOException {
    assertError(http.post("/v1/chat/completions",
        "{\"model\":\"gpt-9\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"),
        404, "NotFoundError", "model", "The model `gpt-9` does not exist");
  }

  @Test
  void absentModelMeansTheServedModel() throws IOException {
    HttpResponse<String> response = http.post("/v1/chat/completions",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response.body()).get("model").asText()).isEqualTo("infermark-sim");
  }

  @Test
  void unknownPathIs404() throws IOException {
    assertError(http.post("/v1/embeddings", "{}"), 404, "NotFoundError", null, "No route for POST /v1/embeddings");
    assertError(http.get("/v1/chat/completions/extra"), 404, "NotFoundError", null, "No route");
  }

  @Test
  void wrongMethodIs405WithAllowHeader() throws IOException {
    HttpResponse<String> getChat = http.get("/v1/chat/completions");
    assertError(getChat, 405, "MethodNotAllowedError", null, "Method GET is not allowed");
    assertThat(getChat.headers().firstValue("Allow")).hasValue("POST");

    HttpResponse<String> postModels = http.post("/v1/models", "{}");
    assertError(postModels, 405, "MethodNotAllowedError", null, "use GET");
    assertThat(postModels.headers().firstValue("Allow")).hasValue("GET");

    HttpResponse<String> deleteHealth = http.send(http.request("/health").DELETE().build());
    assertThat(deleteHealth.statusCode()).isEqualTo(405);
  }

  @Test
  void rejectedRequestsStillGetTimelines() throws IOException {
    http.post("/v1/chat/completions", "{oops", "X-Request-Id", "bad-1");

    ServerTimeline t = sim.timeline("bad-1").orElseThrow();
    assertThat(t.outcome()).isEqualTo(ServerTimeline.Outcome.INVALID_REQUEST);
    assertThat(t.status()).hasValue(400);
    assertThat(t.admissionNanos()).isEmpty();
    assertThat(t.promptTokens()).isEmpty();
    assertThat(t.tokenCount()).isZero();
    assertThat(t.finishNanos()).isGreaterThanOrEqualTo(t.arrivalNanos());
  }

  @Test
  void modelsListsTheServedModel() throws IOException {
    JsonNode models = json(http.get("/v1/models").body());

    assertThat(models.get("object").asText()).isEqualTo("list");
    assertThat(models.get("data")).hasSize(1);
    assertThat(models.at("/data/0/id").asText()).isEqualTo("infermark-sim");
    assertThat(models.at("/data/0/object").asText()).isEqualTo("model");
  }

  @Test
  void healthAnswersAnEmpty200() throws IOException {
    HttpResponse<String> health = http.send(http.request("/health").GET().build(),
        HttpResponse.BodyHandlers.ofString());

    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).isEmpty();
  }

  @Test
  void nonGenerationRequestsAreNotCountedOrTimed() throws IOException {
    http.get("/health");
    http.get("/v1/models");
    http.send(HttpRequest.newBuilder(java.net.URI.create(sim.baseUrl() + "/nope")).GET().build());

    assertThat(sim.requestCount()).isZero();
    assertThat(sim.timelines()).isEmpty();
  }
}
