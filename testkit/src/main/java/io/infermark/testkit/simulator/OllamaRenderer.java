package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.time.Instant;

/**
 * Ollama's native {@code /api/chat} and {@code /api/generate}: NDJSON lines, the last one
 * {@code done} with the engine's durations in nanoseconds.
 */
final class OllamaRenderer extends ProtocolRenderer {
  private final boolean chat;

  OllamaRenderer(JsonFactory json, long created, String model, boolean chat) {
    super(json, "", created, model);
    this.chat = chat;
  }

  @Override
  boolean carriesReasoning() {
    return true;
  }

  @Override
  String streamContentType() {
    return "application/x-ndjson";
  }

  private void head(JsonGenerator g) throws IOException {
    g.writeStringField("model", model());
    g.writeStringField("created_at", Instant.ofEpochSecond(created()).toString());
  }

  private void text(JsonGenerator g, String field, String value) throws IOException {
    if (chat) {
      g.writeObjectFieldStart("message");
      g.writeStringField("role", "assistant");
      g.writeStringField("content", field.equals("thinking") ? "" : value);
      if (field.equals("thinking")) {
        g.writeStringField("thinking", value);
      }
      g.writeEndObject();
    } else {
      g.writeStringField("response", field.equals("thinking") ? "" : value);
      if (field.equals("thinking")) {
        g.writeStringField("thinking", value);
      }
    }
  }

  @Override
  byte[] contentEvent(long seed, int from, int to, String text, boolean reasoning, boolean last,
      String finishReason, TokenUsage usage) {
    return concat(write(g -> {
      g.writeStartObject();
      head(g);
      text(g, reasoning ? "thinking" : "content", text);
      g.writeBooleanField("done", false);
      g.writeEndObject();
    }), ascii("\n"));
  }

  /**
   * The final line's fields, Ollama's durations in nanoseconds from the engine's timeline:
   * {@code total_duration} arrival to last token, {@code load_duration} the cold-start wait (0 when
   * loaded), {@code prompt_eval_duration} the prefill, {@code eval_duration} first to last token.
   */
  private void done(JsonGenerator g, String finishReason, TokenUsage usage) throws IOException {
    ReportedTimings t = reportedTimings();
    g.writeBooleanField("done", true);
    g.writeStringField("done_reason", finishReason);
    g.writeNumberField("total_duration", t.totalNanos());
    g.writeNumberField("load_duration", t.loadNanos());
    g.writeNumberField("prompt_eval_count", usage.promptTokens());
    g.writeNumberField("prompt_eval_duration", t.promptEvalNanos());
    g.writeNumberField("eval_count", usage.completionTokens());
    g.writeNumberField("eval_duration", t.evalNanos());
  }

  @Override
  byte[] trailer(long seed, TokenUsage usage, String finishReason, int reasoningTokens) {
    return concat(write(g -> {
      g.writeStartObject();
      head(g);
      text(g, "content", "");
      done(g, finishReason, usage);
      g.writeEndObject();
    }), ascii("\n"));
  }

  @Override
  byte[] completion(String reasoning, String text, String finishReason, TokenUsage usage) {
    return write(g -> {
      g.writeStartObject();
      head(g);
      text(g, "content", text);
      done(g, finishReason, usage);
      g.writeEndObject();
    });
  }

  @Override
  byte[] errorBody(ApiError error) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("error", error.getMessage());
      g.writeEndObject();
    });
  }

  @Override
  byte[] streamError(String message) {
    return concat(write(g -> {
      g.writeStartObject();
      g.writeStringField("error", message);
      g.writeEndObject();
    }), ascii("\n"));
  }

  @Override
  byte[] malformedEvent() {
    byte[] event = contentEvent(0, 0, 1, " the", false, false, null, null);
    return concat(java.util.Arrays.copyOf(event, event.length - 4), ascii("\n"));
  }
}
