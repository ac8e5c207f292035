package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;

/** Prompt and completion token counts of a response, as the {@code usage} object reports them. */
record TokenUsage(int promptTokens, int completionTokens) {

  /** Writes the usage object in vLLM's key order: prompt, total, completion. */
  void write(JsonGenerator g) throws IOException {
    write(g, -1);
  }

  /**
   * Writes the usage object in vLLM's key order (prompt, total, completion), then, when {@code cachedTokens >= 0},
   * {@code prompt_tokens_details.cached_tokens} as vLLM adds it with {@code --enable-prompt-tokens-details}.
   */
  void write(JsonGenerator g, int cachedTokens) throws IOException {
    g.writeObjectFieldStart("usage");
    g.writeNumberField("prompt_tokens", promptTokens);
    g.writeNumberField("total_tokens", promptTokens + completionTokens);
    g.writeNumberField("completion_tokens", completionTokens);
    if (cachedTokens >= 0) {
      g.writeObjectFieldStart("prompt_tokens_details");
      g.writeNumberField("cached_tokens", cachedTokens);
      g.writeEndObject();
    }
    g.writeEndObject();
  }
}
