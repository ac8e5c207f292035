package io.infermark.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Prompt;
import org.junit.jupiter.api.Test;

/** How the Triton targets ask for each response's token count, and what a refusal of it says. */
class TritonTokenCountRequestTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode body(TritonTarget target) throws Exception {
    try (target) {
      return JSON.readTree(target.outbound(InferenceRequest.of("r", Prompt.user("hi"))).body());
    }
  }

  @Test
  void generateAsksWithATopLevelFieldUnlessTurnedOff() throws Exception {
    JsonNode asking = body(TritonTarget.generate("http://localhost:1", "vllm_model").build());
    assertThat(asking.get("return_num_output_tokens").booleanValue()).isTrue();
    assertThat(asking.get("text_input").asText()).isEqualTo("hi");

    TritonTarget off = TritonTarget.generate("http://localhost:1", "ensemble").returnNumOutputTokens(false).build();
    assertThat(off.returnsNumOutputTokens()).isFalse();
    assertThat(off.toString()).doesNotContain("num_output_tokens");
    assertThat(body(off).has("return_num_output_tokens")).isFalse();
    assertThat(TritonTarget.generate("http://localhost:1", "m").build().toString()).contains("num_output_tokens");
  }

  @Test
  void aFailureNamingTheInputSaysToTurnItOffAndOthersAreUnchanged() {
    Failure refused = Failure.httpStatus(400, "{\"error\":\"[request id: <id_unknown>] unexpected inference input "
        + "'return_num_output_tokens' for model 'vllm_model'\"}");
    Failure hinted = TokenCountRefusal.withHint(refused);
    assertThat(hinted.message()).startsWith(refused.message()).endsWith(TokenCountRefusal.HINT);
    assertThat(hinted.httpStatus()).isEqualTo(400);
    assertThat(hinted.category()).isEqualTo(ErrorCategory.HTTP_STATUS);
    assertThat(TokenCountRefusal.withHint(hinted)).as("added once").isEqualTo(hinted);

    Failure other = Failure.httpStatus(400, "max_tokens must be at least 1");
    assertThat(TokenCountRefusal.withHint(other)).isSameAs(other);

    // a long server message is what is shortened, never the hint
    Failure verbose = Failure.of(ErrorCategory.STREAM_ERROR, "SamplingParams got an unexpected keyword argument "
        + "'return_num_output_tokens' " + "x".repeat(400));
    Failure cut = TokenCountRefusal.withHint(verbose);
    assertThat(cut.message()).hasSizeLessThanOrEqualTo(Failure.MAX_MESSAGE_CHARS).endsWith(TokenCountRefusal.HINT)
        .contains("return_num_output_tokens' x");
  }
}
