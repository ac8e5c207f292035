package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;

/**
 * Triton's {@code generate_stream} and {@code generate}: keys in byte order, as Triton's std::map
 * writes them.
 */
final class TritonRenderer extends ProtocolRenderer {
  TritonRenderer(JsonFactory json, long created, String model) {
    super(json, "", created, model);
  }

  /** Keys in byte order, as Triton's std::map writes them. */
  private byte[] response(String text) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("model_name", model());
      g.writeStringField("model_version", "1");
      g.writeStringField("text_output", text);
      g.writeEndObject();
    });
  }

  @Override
  byte[] contentEvent(long seed, int from, int to, String text, boolean reasoning, boolean last,
      String finishReason, TokenUsage usage) {
    return frame(response(text));
  }

  @Override
  boolean hasTrailer() {
    return false;
  }

  @Override
  byte[] completion(String reasoning, String text, String finishReason, TokenUsage usage) {
    return response(text);
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
