package io.infermark.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import io.infermark.core.stream.ErrorBodies;
import io.infermark.core.stream.StreamDecoder;
import io.infermark.core.stream.StreamDialect;
import io.infermark.core.stream.StreamLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Readers of whole (non-streamed) 2xx bodies, one per protocol, each reporting the body as one
 * chunk at the time it finished arriving, as {@link io.infermark.core.stream.OpenAiResponses} does
 * for OpenAI's shapes. A body that is an error object is a {@link ErrorCategory#STREAM_ERROR};
 * one that is not JSON, or not the protocol's shape, is {@link ErrorCategory#MALFORMED_STREAM}.
 */
final class WholeBodies {

  private WholeBodies() {}

  /**
   * A reader for protocols whose whole body is the same JSON object as their stream's last event
   * (Ollama's {@code done:true} line, llama.cpp's {@code stop:true} event, Triton's response): the
   * body is decoded by the stream's own dialect as a stream of that one event. Line breaks, which
   * JSON allows only as whitespace, become spaces so the object stays one line.
   */
  static HttpExchange.BodyReader asOneEvent(StreamDialect dialect) {
    boolean ndjson = dialect == StreamDialect.OLLAMA_NDJSON;
    return (body, observer, nanoTime) -> {
      byte[] framed = new byte[body.length + 8];
      int at = 0;
      if (!ndjson) {
        for (byte b : "data: ".getBytes(StandardCharsets.US_ASCII)) {
          framed[at++] = b;
        }
      }
      for (byte b : body) {
        framed[at++] = b == '\n' || b == '\r' ? (byte) ' ' : b;
      }
      framed[at++] = '\n';
      if (!ndjson) {
        framed[at++] = '\n';
      }
      int size = Math.max(body.length + 16, 1024);
      StreamDecoder decoder = dialect.newDecoder(observer, new StreamLimits(size, size));
      decoder.feed(framed, 0, at, nanoTime);
      decoder.end(nanoTime);
    };
  }

  /** Anthropic's {@code message} object, or its {@code {"type":"error"}} body. */
  static void anthropic(byte[] body, StreamObserver observer, long nanoTime) {
    JsonNode root = parse(body, observer, nanoTime);
    if (root == null) {
      return;
    }
    if ("error".equals(root.path("type").asText()) || root.hasNonNull("error")) {
      error(root, observer, nanoTime);
      return;
    }
    JsonNode content = root.get("content");
    if (content == null || !content.isArray()) {
      fail(observer, ErrorCategory.MALFORMED_STREAM, "response has neither content nor error", nanoTime);
      return;
    }
    boolean text = false;
    boolean thinking = false;
    boolean tool = false;
    for (JsonNode block : content) {
      String type = block.path("type").asText();
      text |= type.equals("text") && !block.path("text").asText().isEmpty();
      thinking |= type.equals("thinking") && !block.path("thinking").asText().isEmpty();
      tool |= type.endsWith("tool_use");
    }
    JsonNode u = root.path("usage");
    int input = count(u.get("input_tokens"));
    int cacheRead = count(u.get("cache_read_input_tokens"));
    int prompt = input < 0 ? -1 : input + Math.max(cacheRead, 0) + Math.max(count(u.get("cache_creation_input_tokens")), 0);
    Usage usage = Usage.ofKnownCounts(prompt, count(u.get("output_tokens")), -1,
        count(u.path("output_tokens_details").get("thinking_tokens")), cacheRead);
    observer.onChunk(nanoTime, kind(text, thinking, tool), usage.completionTokens().orElse(ChunkTimeline.UNKNOWN_TOKENS));
    if (observer.wantsText()) {
      int index = 0;
      for (JsonNode block : content) {
        String type = block.path("type").asText();
        if (type.equals("text")) {
          observer.onText(ChunkKind.CONTENT, block.path("text").asText());
        } else if (type.equals("thinking")) {
          observer.onText(ChunkKind.REASONING, block.path("thinking").asText());
        } else if (type.endsWith("tool_use")) {
          observer.onToolCallDelta(index, block.path("id").asText(), block.path("name").asText(),
              block.path("input").toString());
        }
        index++;
      }
    }
    finish(observer, usage, root.path("stop_reason").asText(""), nanoTime);
  }

  /** OpenAI's Responses API {@code response} object. */
  static void responses(byte[] body, StreamObserver observer, long nanoTime) {
    JsonNode root = parse(body, observer, nanoTime);
    if (root == null) {
      return;
    }
    if (root.hasNonNull("error") || "failed".equals(root.path("status").asText())) {
      error(root, observer, nanoTime);
      return;
    }
    JsonNode output = root.get("output");
    if (output == null || !output.isArray()) {
      fail(observer, ErrorCategory.MALFORMED_STREAM, "response has neither output nor error", nanoTime);
      return;
    }
    boolean text = false;
    boolean reasoning = false;
    boolean tool = false;
    for (JsonNode item : output) {
      String type = item.path("type").asText();
      tool |= type.equals("function_call");
      reasoning |= type.equals("reasoning");
      for (JsonNode part : item.path("content")) {
        text |= !part.path("text").asText().isEmpty() && !part.path("type").asText().startsWith("reasoning");
        text |= !part.path("refusal").asText().isEmpty();
      }
    }
    JsonNode u = root.path("usage");
    Usage usage = Usage.ofKnownCounts(count(u.get("input_tokens")), count(u.get("output_tokens")),
        count(u.get("total_tokens")),
        count(u.path("output_tokens_details").get("reasoning_tokens")),
        count(u.path("input_tokens_details").get("cached_tokens")));
    observer.onChunk(nanoTime, kind(text, reasoning, tool), usage.completionTokens().orElse(ChunkTimeline.UNKNOWN_TOKENS));
    if (observer.wantsText()) {
      int index = 0;
      for (JsonNode item : output) {
        String type = item.path("type").asText();
        if (type.equals("function_call")) {
          observer.onToolCallDelta(index, item.path("call_id").asText(), item.path("name").asText(),
              item.path("arguments").asText());
        }
        for (JsonNode part : item.path("content")) {
          String t = part.path("text").asText();
          if (!t.isEmpty()) {
            observer.onText(type.equals("reasoning") || part.path("type").asText().startsWith("reasoning")
                ? ChunkKind.REASONING : ChunkKind.CONTENT, t);
          }
        }
        index++;
      }
    }
    String reason = "completed".equals(root.path("status").asText()) ? "stop"
        : root.path("incomplete_details").path("reason").asText("");
    finish(observer, usage, reason, nanoTime);
  }

  /** TGI's {@code /generate} answer: {@code generated_text} and, when asked for, {@code details}. */
  static void tgi(byte[] body, StreamObserver observer, long nanoTime) {
    JsonNode root = parse(body, observer, nanoTime);
    if (root == null) {
      return;
    }
    if (root.isArray() && root.size() == 1) {
      root = root.get(0); // TGI answers some deployments' /generate with a one-element list
    }
    if (root.hasNonNull("error")) {
      error(root, observer, nanoTime);
      return;
    }
    JsonNode text = root.get("generated_text");
    if (text == null || !text.isTextual()) {
      fail(observer, ErrorCategory.MALFORMED_STREAM, "response has neither generated_text nor error", nanoTime);
      return;
    }
    JsonNode details = root.path("details");
    Usage usage = Usage.ofKnownCounts(count(details.get("input_length")), count(details.get("generated_tokens")),
        -1, -1, -1);
    observer.onChunk(nanoTime, text.textValue().isEmpty() ? ChunkKind.EMPTY : ChunkKind.CONTENT,
        usage.completionTokens().orElse(ChunkTimeline.UNKNOWN_TOKENS));
    if (observer.wantsText() && !text.textValue().isEmpty()) {
      observer.onText(ChunkKind.CONTENT, text.textValue());
    }
    finish(observer, usage, details.path("finish_reason").asText(""), nanoTime);
  }

  private static ChunkKind kind(boolean text, boolean reasoning, boolean tool) {
    return text ? ChunkKind.CONTENT : tool ? ChunkKind.TOOL_CALL : reasoning ? ChunkKind.REASONING : ChunkKind.EMPTY;
  }

  private static void finish(StreamObserver observer, Usage usage, String reason, long nanoTime) {
    if (!usage.isEmpty()) {
      observer.onUsage(usage);
    }
    if (!reason.isEmpty()) {
      observer.onFinishReason(reason);
    }
    observer.onComplete(nanoTime);
  }

  private static JsonNode parse(byte[] body, StreamObserver observer, long nanoTime) {
    JsonNode root;
    try {
      root = HttpTarget.MAPPER.readTree(body);
    } catch (IOException e) {
      fail(observer, ErrorCategory.MALFORMED_STREAM, "invalid JSON response: " + ErrorBodies.summarize(
          e.getMessage() == null ? "" : e.getMessage()), nanoTime);
      return null;
    }
    if (root == null || root.isMissingNode() || !(root.isObject() || root.isArray())) {
      fail(observer, ErrorCategory.MALFORMED_STREAM, "response is not a JSON object", nanoTime);
      return null;
    }
    return root;
  }

  private static void error(JsonNode root, StreamObserver observer, long nanoTime) {
    fail(observer, ErrorCategory.STREAM_ERROR, ErrorBodies.summarize(root.toString()), nanoTime);
  }

  private static void fail(StreamObserver observer, ErrorCategory category, String message, long nanoTime) {
    observer.onFailure(Failure.of(category, message), nanoTime);
  }

  private static int count(JsonNode n) {
    if (n == null || !n.isNumber() || n.asLong() < 0) {
      return -1;
    }
    return (int) Math.min(n.asLong(), Integer.MAX_VALUE);
  }
}
