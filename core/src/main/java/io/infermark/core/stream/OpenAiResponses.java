package io.infermark.core.stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * Reports a non-streaming OpenAI-compatible {@code chat/completions} or {@code completions}
 * response to a {@link StreamObserver} as if it were a stream of one chunk, so that requests sent
 * with {@code stream: false} are recorded with the same model as streamed ones.
 */
public final class OpenAiResponses {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private OpenAiResponses() {}

  /**
   * Reports one response body: a single chunk at {@code nanoTime} — {@link ChunkKind#CONTENT} when
   * any choice has content, refusal or text, else {@link ChunkKind#TOOL_CALL} when it has tool
   * calls, else {@link ChunkKind#REASONING} when it has only reasoning, else
   * {@link ChunkKind#EMPTY} — carrying {@code usage.completion_tokens} tokens when present; then
   * the text (when the observer wants it), usage, finish reasons, llama.cpp {@code timings}, and
   * completion. A body with an {@code error} is a {@link ErrorCategory#STREAM_ERROR}; a body that
   * is not JSON, or has no {@code choices}, is {@link ErrorCategory#MALFORMED_STREAM}.
   *
   * @param body the complete response body
   * @param observer receives the events
   * @param nanoTime when the body finished arriving
   */
  public static void report(byte[] body, StreamObserver observer, long nanoTime) {
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(observer, "observer");
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      fail(observer, ErrorCategory.MALFORMED_STREAM, "invalid JSON response: " + e.getOriginalMessage(), nanoTime);
      return;
    } catch (IOException e) {
      fail(observer, ErrorCategory.MALFORMED_STREAM, "unreadable response: " + e.getMessage(), nanoTime);
      return;
    }
    if (root == null || root.isMissingNode()) {
      fail(observer, ErrorCategory.MALFORMED_STREAM, "empty response body", nanoTime);
      return;
    }
    if (!root.isObject()) {
      fail(observer, ErrorCategory.MALFORMED_STREAM, "response is not a JSON object", nanoTime);
      return;
    }
    JsonNode error = root.get("error");
    if (error != null && isTruthy(error)) {
      fail(observer, ErrorCategory.STREAM_ERROR, ErrorBodies.summarize(root.toString()), nanoTime);
      return;
    }
    JsonNode choices = root.get("choices");
    if (choices == null || !choices.isArray()) {
      fail(observer, ErrorCategory.MALFORMED_STREAM, "response has neither choices nor error", nanoTime);
      return;
    }
    boolean content = false;
    boolean reasoning = false;
    boolean tools = false;
    for (JsonNode choice : choices) {
      JsonNode message = choice.path("message");
      content |= nonEmpty(message.get("content")) || nonEmpty(message.get("refusal"))
          || nonEmpty(choice.get("text"));
      reasoning |= nonEmpty(message.get("reasoning_content")) || nonEmpty(message.get("reasoning"));
      JsonNode calls = message.get("tool_calls");
      tools |= calls != null && calls.isArray() && !calls.isEmpty();
    }
    ChunkKind kind = content ? ChunkKind.CONTENT
        : tools ? ChunkKind.TOOL_CALL
        : reasoning ? ChunkKind.REASONING
        : ChunkKind.EMPTY;
    Usage usage = usageOf(root.get("usage"));
    int tokens = usage.completionTokens().orElse(ChunkTimeline.UNKNOWN_TOKENS);
    observer.onChunk(nanoTime, kind, tokens);
    if (observer.wantsText()) {
      for (JsonNode choice : choices) {
        reportText(choice, observer);
      }
    }
    if (!usage.isEmpty()) {
      observer.onUsage(usage);
    }
    for (JsonNode choice : choices) {
      JsonNode reason = choice.get("finish_reason");
      if (nonEmpty(reason)) {
        observer.onFinishReason(reason.textValue());
      }
    }
    JsonNode timings = root.get("timings");
    if (timings != null && timings.isObject()) {
      for (Map.Entry<String, JsonNode> e : timings.properties()) {
        if (e.getValue().isNumber()) {
          observer.onServerTiming("timings." + e.getKey(), e.getValue().doubleValue());
        }
      }
    }
    observer.onComplete(nanoTime);
  }

  private static void reportText(JsonNode choice, StreamObserver observer) {
    JsonNode message = choice.path("message");
    for (String field : new String[] {"reasoning_content", "reasoning"}) {
      if (nonEmpty(message.get(field))) {
        observer.onText(ChunkKind.REASONING, message.get(field).textValue());
      }
    }
    for (JsonNode text : new JsonNode[] {message.get("content"), message.get("refusal"), choice.get("text")}) {
      if (nonEmpty(text)) {
        observer.onText(ChunkKind.CONTENT, text.textValue());
      }
    }
    JsonNode calls = message.get("tool_calls");
    if (calls != null && calls.isArray()) {
      int position = 0;
      for (JsonNode call : calls) {
        JsonNode function = call.path("function");
        JsonNode arguments = function.get("arguments");
        String args = arguments == null || arguments.isNull() ? ""
            : arguments.isTextual() ? arguments.textValue() : arguments.toString();
        int index = call.path("index").isInt() ? call.get("index").intValue() : position;
        observer.onToolCallDelta(index, textOrEmpty(call.get("id")), textOrEmpty(function.get("name")), args);
        position++;
      }
    }
  }

  private static Usage usageOf(JsonNode usage) {
    if (usage == null || !usage.isObject()) {
      return Usage.NONE;
    }
    int reasoning = count(usage.path("completion_tokens_details").get("reasoning_tokens"));
    if (reasoning < 0) {
      reasoning = count(usage.get("reasoning_tokens"));
    }
    return Usage.ofKnownCounts(count(usage.get("prompt_tokens")), count(usage.get("completion_tokens")),
        count(usage.get("total_tokens")), reasoning,
        count(usage.path("prompt_tokens_details").get("cached_tokens")));
  }

  private static int count(JsonNode n) {
    if (n == null || !n.isNumber() || n.asLong() < 0) {
      return -1;
    }
    return (int) Math.min(n.asLong(), Integer.MAX_VALUE);
  }

  private static boolean nonEmpty(JsonNode n) {
    return n != null && n.isTextual() && !n.textValue().isEmpty();
  }

  private static String textOrEmpty(JsonNode n) {
    return n != null && n.isTextual() ? n.textValue() : "";
  }

  private static boolean isTruthy(JsonNode n) {
    return !(n.isNull() || (n.isBoolean() && !n.booleanValue()) || (n.isTextual() && n.textValue().isEmpty()));
  }

  private static void fail(StreamObserver observer, ErrorCategory category, String message, long nanoTime) {
    observer.onFailure(Failure.of(category, message), nanoTime);
  }
}
