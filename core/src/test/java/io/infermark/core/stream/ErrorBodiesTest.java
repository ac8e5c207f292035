package io.infermark.core.stream;

import static io.infermark.core.stream.Feeding.fixture;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.Failure;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ErrorBodiesTest {

  private static String fixtureText(String name) {
    return new String(fixture(name), StandardCharsets.UTF_8);
  }

  @Test
  void openAiErrorBodyGivesTypeAndMessage() {
    String summary = ErrorBodies.summarize(fixtureText("openai-error-prestream-401.txt"));
    assertThat(summary).isEqualTo("invalid_request_error: Unauthorized");
    assertThat(Failure.httpStatus(401, summary).message()).isEqualTo("HTTP 401: invalid_request_error: Unauthorized");
  }

  @Test
  void tgiErrorBodyGivesErrorTypeAndMessage() {
    assertThat(ErrorBodies.summarize(fixtureText("tgi-error-prestream-422.txt")))
        .isEqualTo("tool_error: Tool error: Grammar and tools are mutually exclusive");
  }

  @Test
  void flatVllmAndSglangErrorBodyGivesTypeAndMessage() {
    assertThat(ErrorBodies.summarize("{\"object\":\"error\",\"message\":\"The model `x` does not exist.\","
        + "\"type\":\"NotFoundError\",\"param\":null,\"code\":404}"))
        .isEqualTo("NotFoundError: The model `x` does not exist.");
  }

  @Test
  void anthropicErrorBodyGivesTheInnerTypeAndMessage() {
    assertThat(ErrorBodies.summarize(
        "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"))
        .isEqualTo("overloaded_error: Overloaded");
  }

  @Test
  void ollamaErrorStringIsTheMessage() {
    assertThat(ErrorBodies.summarize("{\"error\":\"model \\\"llama9\\\" not found, try pulling it first\"}"))
        .isEqualTo("model \"llama9\" not found, try pulling it first");
  }

  @Test
  void springBootErrorPageKeepsTheMessageAndThePath() {
    assertThat(ErrorBodies.summarize("{\"timestamp\":\"2026-12-02T08:10:51.158+00:00\",\"status\":404,"
        + "\"error\":\"Not Found\",\"path\":\"/v1/chat/completions\"}"))
        .isEqualTo("Not Found (path /v1/chat/completions)");
    assertThat(ErrorBodies.summarize("{\"status\":500,\"error\":\"Internal Server Error\",\"message\":\"context "
        + "length 384 exceeded\",\"path\":\"/chat/completions\"}"))
        .isEqualTo("Internal Server Error: context length 384 exceeded (path /chat/completions)");
  }

  @Test
  void missingOrNullTypeGivesTheMessageAlone() {
    assertThat(ErrorBodies.summarize("{\"error\":{\"message\":\"Bad thing\",\"type\":null,\"code\":null}}"))
        .isEqualTo("Bad thing");
    assertThat(ErrorBodies.summarize("{\"error\":{\"type\":\"server_error\"}}")).isEqualTo("server_error");
  }

  @Test
  void fastApiDetailIsUsed() {
    assertThat(ErrorBodies.summarize("{\"detail\":\"Not Found\"}")).isEqualTo("Not Found");
    assertThat(ErrorBodies.summarize("{\"detail\":[{\"loc\":[\"body\",\"model\"],\"msg\":\"field required\","
        + "\"type\":\"value_error.missing\"}]}")).isEqualTo("field required");
  }

  @Test
  void htmlErrorPageIsReducedToItsText() {
    String nginx = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
        + "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
    assertThat(ErrorBodies.summarize(nginx)).isEqualTo("502 Bad Gateway 502 Bad Gateway nginx");
  }

  @Test
  void plainTextIsCollapsedAndCutAt200Characters() {
    assertThat(ErrorBodies.summarize("  Internal\n\n Server\tError \n")).isEqualTo("Internal Server Error");
    String summary = ErrorBodies.summarize("x".repeat(500));
    assertThat(summary).hasSize(200).endsWith("…");
  }

  @Test
  void unrecognisedOrBrokenJsonFallsBackToItsText() {
    assertThat(ErrorBodies.summarize("{\"foo\": 1}")).isEqualTo("{\"foo\": 1}");
    assertThat(ErrorBodies.summarize("{\"error\":{\"message\":\"cut")).isEqualTo("{\"error\":{\"message\":\"cut");
  }

  @Test
  void neverThrowsAndGivesEmptyForNothing() {
    assertThat(ErrorBodies.summarize(null)).isEmpty();
    assertThat(ErrorBodies.summarize(" \n ")).isEmpty();
    assertThat(ErrorBodies.summarize("[".repeat(100_000))).hasSize(200);
    assertThat(ErrorBodies.summarize("[]")).isEqualTo("[]");
    assertThat(ErrorBodies.summarize("\"just a string\"")).isEqualTo("just a string");
    assertThat(ErrorBodies.summarize("<")).isEqualTo("<");
  }
}
