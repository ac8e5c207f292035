package io.infermark.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.request.ContentPart;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import org.junit.jupiter.api.Test;

class MultimodalEncodingTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PNG = "iVBORw0KGgo=";
  private static final String WAV = "UklGRg==";

  private static final Prompt MIXED = Prompt.chat(Message.system("Be brief."),
      Message.user(ContentPart.text("Look: "), ContentPart.imageUrl("https://example.com/a.png"),
          ContentPart.imageBase64("image/png", PNG), ContentPart.text("and listen.")));

  private static JsonNode body(HttpTarget target, Prompt prompt) throws Exception {
    try (target) {
      return JSON.readTree(target.outbound(InferenceRequest.of("r", prompt)).body());
    }
  }

  @Test
  void openAiChatSendsTextImageUrlDataUrlAndInputAudioParts() throws Exception {
    Prompt prompt = Prompt.chat(Message.user(ContentPart.text("Hear this"), ContentPart.audio(WAV, "wav")));
    JsonNode mixed = body(OpenAiTarget.chat("http://localhost:1", "m").build(), MIXED);
    assertThat(mixed.at("/messages/0/content").asText()).isEqualTo("Be brief.");
    JsonNode parts = mixed.at("/messages/1/content");
    assertThat(parts.toString()).isEqualTo("[{\"type\":\"text\",\"text\":\"Look: \"},"
        + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://example.com/a.png\"}},"
        + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64," + PNG + "\"}},"
        + "{\"type\":\"text\",\"text\":\"and listen.\"}]");
    JsonNode audio = body(OpenAiTarget.chat("http://localhost:1", "m").build(), prompt);
    assertThat(audio.at("/messages/0/content/1").toString())
        .isEqualTo("{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"" + WAV + "\",\"format\":\"wav\"}}");
  }

  @Test
  void anthropicSendsImageBlocksWithBase64AndUrlSources() throws Exception {
    JsonNode body = body(AnthropicTarget.messages("http://localhost:1", "m").build(), MIXED);
    assertThat(body.get("system").asText()).isEqualTo("Be brief.");
    assertThat(body.at("/messages/0/content").toString()).isEqualTo("[{\"type\":\"text\",\"text\":\"Look: \"},"
        + "{\"type\":\"image\",\"source\":{\"type\":\"url\",\"url\":\"https://example.com/a.png\"}},"
        + "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"" + PNG + "\"}},"
        + "{\"type\":\"text\",\"text\":\"and listen.\"}]");
  }

  @Test
  void aTextMessageStaysAString() throws Exception {
    JsonNode body = body(OpenAiTarget.chat("http://localhost:1", "m").build(), Prompt.user("Hi"));
    assertThat(body.at("/messages/0/content").isTextual()).isTrue();
  }

  @Test
  void protocolsThatCannotCarryAPartFailTheRequestSayingWhy() {
    Prompt audio = Prompt.chat(Message.user(ContentPart.audio(WAV, "wav")));
    assertThatThrownBy(() -> body(AnthropicTarget.messages("http://localhost:1", "m").build(), audio))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no audio");
    assertThatThrownBy(() -> body(OllamaTarget.chat("http://localhost:1", "m").build(), MIXED))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("text only");
    assertThatThrownBy(() -> body(OpenAiTarget.completions("http://localhost:1", "m").build(), MIXED))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("text only");
  }
}
