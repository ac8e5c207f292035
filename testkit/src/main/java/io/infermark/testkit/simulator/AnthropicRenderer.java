package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * Anthropic's Messages API: typed SSE events ({@code message_start}, content blocks,
 * {@code message_delta}, {@code message_stop}) and its error objects.
 */
final class AnthropicRenderer extends ProtocolRenderer {
  private boolean thinkingOpen;
  private int textIndex;

  AnthropicRenderer(JsonFactory json, String id, long created, String model) {
    super(json, id, created, model);
  }

  @Override
  boolean sendsRoleChunk() {
    return true;
  }

  @Override
  void begin() {
    thinkingOpen = false;
    textIndex = 0;
  }

  @Override
  byte[] prelude(TokenUsage usage) {
    return typed("message_start", write(g -> {
      g.writeStartObject();
      g.writeStringField("type", "message_start");
      g.writeObjectFieldStart("message");
      g.writeStringField("id", id());
      g.writeStringField("type", "message");
      g.writeStringField("role", "assistant");
      g.writeStringField("model", model());
      g.writeArrayFieldStart("content");
      g.writeEndArray();
      g.writeNullField("stop_reason");
      g.writeNullField("stop_sequence");
      g.writeObjectFieldStart("usage");
      g.writeNumberField("input_tokens", usage == null ? 0 : usage.promptTokens());
      g.writeNumberField("output_tokens", 1);
      g.writeEndObject();
      g.writeEndObject();
      g.writeEndObject();
    }));
  }

  /** A {@code content_block_start} of an empty block of {@code type} ({@code text} or {@code thinking}). */
  private byte[] blockStart(int index, String type) {
    return typed("content_block_start", write(g -> {
      g.writeStartObject();
      g.writeStringField("type", "content_block_start");
      g.writeNumberField("index", index);
      g.writeObjectFieldStart("content_block");
      g.writeStringField("type", type);
      g.writeStringField(type, "");
      g.writeEndObject();
      g.writeEndObject();
    }));
  }

  private byte[] blockStop(int index) {
    return typed("content_block_stop", ascii("{\"type\":\"content_block_stop\",\"index\":" + index + "}"));
  }

  @Override
  byte[] contentEvent(long seed, int from, int to, String text, boolean reasoning, boolean last,
      String finishReason, TokenUsage usage) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    if (from == 0) {
      thinkingOpen = reasoning;
      textIndex = reasoning ? 1 : 0;
      out.writeBytes(blockStart(0, reasoning ? "thinking" : "text"));
    } else if (thinkingOpen && !reasoning) {
      thinkingOpen = false;
      out.writeBytes(typed("content_block_delta", write(g -> {
        g.writeStartObject();
        g.writeStringField("type", "content_block_delta");
        g.writeNumberField("index", 0);
        g.writeObjectFieldStart("delta");
        g.writeStringField("type", "signature_delta");
        g.writeStringField("signature", "c2ltdWxhdGVk");
        g.writeEndObject();
        g.writeEndObject();
      })));
      out.writeBytes(blockStop(0));
      out.writeBytes(blockStart(1, "text"));
    }
    int index = reasoning ? 0 : textIndex;
    out.writeBytes(typed("content_block_delta", write(g -> {
      g.writeStartObject();
      g.writeStringField("type", "content_block_delta");
      g.writeNumberField("index", index);
      g.writeObjectFieldStart("delta");
      g.writeStringField("type", reasoning ? "thinking_delta" : "text_delta");
      g.writeStringField(reasoning ? "thinking" : "text", text);
      g.writeEndObject();
      g.writeEndObject();
    })));
    return out.toByteArray();
  }

  @Override
  byte[] trailer(long seed, TokenUsage usage, String finishReason, int reasoningTokens) {
    byte[] delta = write(g -> {
      g.writeStartObject();
      g.writeStringField("type", "message_delta");
      g.writeObjectFieldStart("delta");
      g.writeStringField("stop_reason", stopReason(finishReason));
      g.writeNullField("stop_sequence");
      g.writeEndObject();
      g.writeObjectFieldStart("usage");
      g.writeNumberField("output_tokens", usage.completionTokens());
      if (reasoningTokens > 0) {
        g.writeObjectFieldStart("output_tokens_details");
        g.writeNumberField("thinking_tokens", reasoningTokens);
        g.writeEndObject();
      }
      g.writeEndObject();
      g.writeEndObject();
    });
    return concat(blockStop(thinkingOpen ? 0 : textIndex), typed("message_delta", delta),
        typed("message_stop", ascii("{\"type\":\"message_stop\"}")));
  }

  private static String stopReason(String finishReason) {
    return "length".equals(finishReason) ? "max_tokens" : "end_turn";
  }

  @Override
  byte[] completion(String reasoning, String text, String finishReason, TokenUsage usage) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("id", id());
      g.writeStringField("type", "message");
      g.writeStringField("role", "assistant");
      g.writeStringField("model", model());
      g.writeArrayFieldStart("content");
      if (!reasoning.isEmpty()) {
        g.writeStartObject();
        g.writeStringField("type", "thinking");
        g.writeStringField("thinking", reasoning);
        g.writeStringField("signature", "c2ltdWxhdGVk");
        g.writeEndObject();
      }
      g.writeStartObject();
      g.writeStringField("type", "text");
      g.writeStringField("text", text);
      g.writeEndObject();
      g.writeEndArray();
      g.writeStringField("stop_reason", stopReason(finishReason));
      g.writeNullField("stop_sequence");
      g.writeObjectFieldStart("usage");
      g.writeNumberField("input_tokens", usage.promptTokens());
      g.writeNumberField("output_tokens", usage.completionTokens());
      g.writeEndObject();
      g.writeEndObject();
    });
  }

  @Override
  byte[] errorBody(ApiError error) {
    return write(g -> writeError(g, error.status(), error.getMessage()));
  }

  private static void writeError(JsonGenerator g, int status, String message) throws IOException {
    g.writeStartObject();
    g.writeStringField("type", "error");
    g.writeObjectFieldStart("error");
    g.writeStringField("type", switch (status) {
      case 400 -> "invalid_request_error";
      case 401 -> "authentication_error";
      case 403 -> "permission_error";
      case 404 -> "not_found_error";
      case 429 -> "rate_limit_error";
      case 503, 529 -> "overloaded_error";
      default -> "api_error";
    });
    g.writeStringField("message", message);
    g.writeEndObject();
    g.writeEndObject();
  }

  @Override
  byte[] streamError(String message) {
    return typed("error", write(g -> writeError(g, 529, message)));
  }
}
