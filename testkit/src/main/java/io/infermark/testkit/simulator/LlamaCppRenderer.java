package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;

/**
 * llama.cpp's {@code /completion}: SSE content events ending in a {@code stop} event with timings.
 */
final class LlamaCppRenderer extends ProtocolRenderer {
  LlamaCppRenderer(JsonFactory json, long created, String model) {
    super(json, "", created, model);
  }

  @Override
  byte[] contentEvent(long seed, int from, int to, String text, boolean reasoning, boolean last,
      String finishReason, TokenUsage usage) {
    return frame(write(g -> {
      g.writeStartObject();
      g.writeNumberField("index", 0);
      g.writeStringField("content", text);
      g.writeArrayFieldStart("tokens");
      for (int i = from; i < to; i++) {
        g.writeNumber(1000 + i);
      }
      g.writeEndArray();
      g.writeBooleanField("stop", false);
      g.writeNumberField("id_slot", -1);
      g.writeNumberField("tokens_predicted", to);
      g.writeNumberField("tokens_evaluated", usage == null ? 0 : usage.promptTokens());
      g.writeEndObject();
    }));
  }

  private void stop(JsonGenerator g, String content, String finishReason, TokenUsage usage) throws IOException {
    g.writeStartObject();
    g.writeNumberField("index", 0);
    g.writeStringField("content", content);
    g.writeArrayFieldStart("tokens");
    g.writeEndArray();
    g.writeNumberField("id_slot", 0);
    g.writeBooleanField("stop", true);
    g.writeStringField("model", model());
    g.writeNumberField("tokens_predicted", usage.completionTokens());
    g.writeNumberField("tokens_evaluated", usage.promptTokens());
    g.writeBooleanField("truncated", false);
    g.writeStringField("stop_type", "length".equals(finishReason) ? "limit" : "eos");
    g.writeStringField("stopping_word", "");
    g.writeNumberField("tokens_cached", usage.promptTokens() + usage.completionTokens());
    // llama.cpp's timings, in ms from the engine's timeline: prompt_ms the prefill (of the tokens
    // not found in the cache), predicted_ms first to last token
    ReportedTimings t = reportedTimings();
    double promptMs = ReportedTimings.millis(t.promptEvalNanos());
    double predictedMs = ReportedTimings.millis(t.evalNanos());
    int promptN = t == ReportedTimings.NONE ? usage.promptTokens() : t.promptTokensComputed();
    int predictedN = usage.completionTokens();
    g.writeObjectFieldStart("timings");
    if (reportsCachedTokens()) {
      g.writeNumberField("cache_n", cachedPromptTokens()); // llama.cpp's prompt tokens reused from the cache
    }
    g.writeNumberField("prompt_n", promptN);
    g.writeNumberField("prompt_ms", promptMs);
    g.writeNumberField("prompt_per_token_ms", promptN == 0 ? 0 : promptMs / promptN);
    g.writeNumberField("prompt_per_second", promptMs == 0 ? 0 : 1e3 * promptN / promptMs);
    g.writeNumberField("predicted_n", predictedN);
    g.writeNumberField("predicted_ms", predictedMs);
    g.writeNumberField("predicted_per_token_ms", predictedN == 0 ? 0 : predictedMs / predictedN);
    g.writeNumberField("predicted_per_second", predictedMs == 0 ? 0 : 1e3 * predictedN / predictedMs);
    g.writeEndObject();
    g.writeEndObject();
  }

  @Override
  byte[] trailer(long seed, TokenUsage usage, String finishReason, int reasoningTokens) {
    return frame(write(g -> stop(g, "", finishReason, usage)));
  }

  @Override
  byte[] completion(String reasoning, String text, String finishReason, TokenUsage usage) {
    return write(g -> stop(g, text, finishReason, usage));
  }

  private void writeError(JsonGenerator g, int status, String message) throws IOException {
    g.writeStartObject();
    g.writeNumberField("code", status);
    g.writeStringField("message", message);
    g.writeStringField("type", switch (status) {
      case 400 -> "invalid_request_error";
      case 401 -> "authentication_error";
      case 404 -> "not_found_error";
      case 503 -> "unavailable_error";
      default -> "server_error";
    });
    g.writeEndObject();
  }

  @Override
  byte[] errorBody(ApiError error) {
    return write(g -> {
      g.writeStartObject();
      g.writeFieldName("error");
      writeError(g, error.status(), error.getMessage());
      g.writeEndObject();
    });
  }

  /** Newer builds send the non-standard {@code error:} SSE field once streaming started. */
  @Override
  byte[] streamError(String message) {
    return concat(ascii("error: "), write(g -> writeError(g, 500, message)), ascii("\n\n"));
  }
}
