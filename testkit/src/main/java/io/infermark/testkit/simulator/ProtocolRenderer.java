package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The base of the renderers of the protocols other than OpenAI's chat and completions, which do not
 * share OpenAI's chunk objects, each in the byte shapes of the real server as recorded in the wire
 * fixtures: Anthropic Messages ({@link AnthropicRenderer}), Ollama's native NDJSON
 * ({@link OllamaRenderer}), TGI's {@code generate_stream} ({@link TgiRenderer}), llama.cpp's
 * {@code /completion} ({@link LlamaCppRenderer}), Triton's {@code generate_stream}
 * ({@link TritonRenderer}) and OpenAI's Responses API ({@link ResponsesRenderer}). Success, errors
 * before the stream and errors inside it each take the protocol's own shape.
 */
abstract class ProtocolRenderer extends ResponseRenderer {

  ProtocolRenderer(JsonFactory json, String id, long created, String model) {
    super(json, id, created, model);
  }

  @Override
  boolean sendsRoleChunk() {
    return false;
  }

  @Override
  boolean plainFastPath() {
    return false;
  }

  @Override
  boolean openAiTrailer() {
    return false;
  }

  @Override
  String chunkObject() {
    throw new UnsupportedOperationException("no OpenAI chunk objects in this protocol");
  }

  @Override
  byte[] roleChunk(TokenUsage usage) {
    throw new UnsupportedOperationException("no role chunk in this protocol");
  }

  @Override
  byte[] contentChunk(String text, String finishReason, TokenUsage usage) {
    return contentEvent(0, 0, 1, text, false, false, null, usage);
  }

  @Override
  byte[] completion(String text, String finishReason, TokenUsage usage) {
    return completion("", text, finishReason, usage);
  }

  @Override
  abstract byte[] completion(String reasoning, String text, String finishReason, TokenUsage usage);

  @Override
  byte[] malformedEvent() {
    byte[] event = contentEvent(0, 0, 1, " the", false, false, null, null);
    int end = event.length;
    while (end > 0 && (event[end - 1] == '\n')) {
      end--;
    }
    return concat(java.util.Arrays.copyOf(event, end - 3), ascii("\n\n"));
  }

  /** The renderer of an endpoint outside OpenAI's chat and completions. */
  static ResponseRenderer of(Endpoint endpoint, JsonFactory json, String hex, long created, String model) {
    return switch (endpoint) {
      case ANTHROPIC_MESSAGES -> new AnthropicRenderer(json, "msg_" + hex.substring(0, 24), created, model);
      case OLLAMA_CHAT -> new OllamaRenderer(json, created, model, true);
      case OLLAMA_GENERATE -> new OllamaRenderer(json, created, model, false);
      case TGI_GENERATE_STREAM, TGI_GENERATE -> new TgiRenderer(json, created, model, endpoint.alwaysStreams());
      case LLAMACPP_COMPLETION -> new LlamaCppRenderer(json, created, model);
      case TRITON_GENERATE_STREAM, TRITON_GENERATE -> new TritonRenderer(json, created, model);
      case OPENAI_RESPONSES -> new ResponsesRenderer(json, "resp_" + hex, created, model);
      default -> throw new IllegalArgumentException("not a protocol renderer's endpoint: " + endpoint);
    };
  }

  /** Bytes of concatenated parts. */
  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** {@code event: <type>\ndata: <json>\n\n}. */
  static byte[] typed(String type, byte[] json) {
    return concat(ascii("event: " + type + "\ndata: "), json, ascii("\n\n"));
  }
}
