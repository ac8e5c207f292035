package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;

/** Prompt and completion token counts of a response, as the {@code usage} object reports them. */
record TokenUsage(int promptTokens, int completionTokens) {

  /** Writes the usage object in vLLM's key order: prompt, total, completion. */
  void write(JsonGenerator g) throws IOException {
    g.writeObjectFieldStart("usage");
    g.writeNumberField("prompt_tokens", promptTokens);
    g.writeNumberField("total_tokens", promptTokens + completionTokens);
    g.writeNumberField("completion_tokens", completionTokens);
    g.writeEndObject();
  }
}
