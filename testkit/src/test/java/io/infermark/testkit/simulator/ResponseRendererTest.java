package io.infermark.testkit.simulator;

import static io.infermark.testkit.simulator.SimHttp.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import io.infermark.testkit.simulator.server.ChunkBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact bytes of the chunk shapes the streaming tests only check by value: chat deltas
 * that carry continuous usage, and the usage chunk, which both endpoints render alike.
 */
class ResponseRendererTest {

  private static final JsonFactory JSON = new JsonFactory();
  private static final TokenUsage USAGE = new TokenUsage(5, 2);
  private static final String USAGE_JSON = "\"usage\":{\"prompt_tokens\":5,\"total_tokens\":7,\"completion_tokens\":2}}";

  private static ResponseRenderer renderer(Endpoint endpoint) {
    return ResponseRenderer.of(endpoint, JSON, 11, 4, 1_700_000_000L, "m");
  }

  /** The common header, with the id the renderer drew from the seed and sequence. */
  private static String header(byte[] chunk, String object) {
    String id = json(new String(chunk, StandardCharsets.UTF_8)).get("id").asText();
    return "{\"id\":\"" + id + "\",\"object\":\"" + object + "\",\"created\":1700000000,\"model\":\"m\",";
  }

  @Test
  void chatRoleChunkWithContinuousUsageHasTheUsageAfterTheChoices() {
    byte[] chunk = renderer(Endpoint.CHAT).roleChunk(USAGE);

    assertThat(new String(chunk, StandardCharsets.UTF_8)).isEqualTo(header(chunk, "chat.completion.chunk")
        + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
        + "\"finish_reason\":null}]," + USAGE_JSON);
  }

  @Test
  void chatFinishingContentChunkWithContinuousUsageHasStopReasonAndUsage() {
    byte[] chunk = renderer(Endpoint.CHAT).contentChunk(" a", "stop", USAGE);

    assertThat(new String(chunk, StandardCharsets.UTF_8)).isEqualTo(header(chunk, "chat.completion.chunk")
        + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" a\"},\"logprobs\":null,"
        + "\"finish_reason\":\"stop\",\"stop_reason\":null}]," + USAGE_JSON);
  }

  @Test
  void usageChunkIsEmptyChoicesAndUsageOnBothEndpoints() {
    byte[] chat = renderer(Endpoint.CHAT).usageChunk(USAGE);
    byte[] completions = renderer(Endpoint.COMPLETIONS).usageChunk(USAGE);

    assertThat(new String(chat, StandardCharsets.UTF_8))
        .isEqualTo(header(chat, "chat.completion.chunk") + "\"choices\":[]," + USAGE_JSON);
    assertThat(new String(completions, StandardCharsets.UTF_8))
        .isEqualTo(header(completions, "text_completion") + "\"choices\":[]," + USAGE_JSON);
  }

  @Test
  void idsAreSixteenZeroPaddedHexDigitsPerHalfAsFormatPrintsThem() {
    for (long v : new long[] {0, 1, 0xabcL, -1, Long.MIN_VALUE, 0x0123456789abcdefL}) {
      assertThat(ResponseRenderer.hex16(v)).isEqualTo(String.format("%016x", v));
    }
  }

  @Test
  void thePlainContentFastPathIsByteForByteTheGeneratorsChunk() {
    for (Endpoint endpoint : new Endpoint[] {Endpoint.CHAT, Endpoint.COMPLETIONS}) { // OpenAI's shapes only
      for (int[] range : new int[][] {{0, 1}, {5, 6}, {3, 3}, {10, 17}}) {
        String text = OutputVocabulary.text(11, range[0], range[1]);
        byte[] slow = renderer(endpoint).contentChunk(text, null, null);
        String framed = "data: " + new String(slow, StandardCharsets.UTF_8) + "\n\n";
        ResponseRenderer r = renderer(endpoint);
        ChunkBuffer out = new ChunkBuffer(8);
        r.appendPlainContentEvent(out, 11, 0, 2); // the template is rendered once, then reused
        out.raw();
        r.appendPlainContentEvent(out, 11, range[0], range[1]);
        assertThat(new String(out.contents(), StandardCharsets.UTF_8)).as("%s %s", endpoint, text).isEqualTo(framed);
      }
    }
  }
}
