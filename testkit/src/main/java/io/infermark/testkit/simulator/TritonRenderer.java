package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;

/**
 * Triton's {@code generate_stream} and {@code generate}: keys in byte order, as Triton's std::map
 * writes them. A request that asked with {@code return_num_output_tokens} gets each response's token
 * count as {@code num_output_tokens} (the vLLM backend's output: the tokens of that response).
 */
final class TritonRenderer extends ProtocolRenderer {
  /** Whether the request asked for {@code num_output_tokens}. */
  private boolean numOutputTokens;

  TritonRenderer(JsonFactory json, long created, String model) {
    super(json, "", created, model);
  }

  void numOutputTokens(boolean send) {
    this.numOutputTokens = send;
  }

  /** Keys in byte order, as Triton's std::map writes them. */
  private byte[] response(String text, int tokens) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("model_name", model());
      g.writeStringField("model_version", "1");
      if (numOutputTokens) {
        g.writeNumberField("num_output_tokens", tokens);
      }
      g.writeStringField("text_output", text);
      g.writeEndObject();
    });
  }

  @Override
  byte[] contentEvent(long seed, int from, int to, String text, boolean reasoning, boolean last,
      String finishReason, TokenUsage usage) {
    return frame(response(text, to - from));
  }

  @Override
  boolean hasTrailer() {
    return false;
  }

  @Override
  byte[] completion(String reasoning, String text, String finishReason, TokenUsage usage) {
    return response(text, usage.completionTokens());
  }

  private byte[] error(String message) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("error", message);
      g.writeEndObject();
    });
  }

  @Override
  byte[] errorBody(ApiError error) {
    return error(error.getMessage());
  }

  @Override
  byte[] streamError(String message) {
    return frame(error(message));
  }
}
