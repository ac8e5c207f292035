package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import java.io.ByteArrayOutputStream;

/**
 * TGI's {@code generate_stream} and {@code generate}: SSE token events with a final
 * {@code generated_text} and optional details.
 */
final class TgiRenderer extends ProtocolRenderer {
  /** Whether the request asked for {@code details} (the parser carries it as include-usage). */
  private boolean details;

  private final boolean streaming;

  TgiRenderer(JsonFactory json, long created, String model, boolean streaming) {
    super(json, "", created, model);
    this.streaming = streaming;
  }

  @Override
  boolean errorsInsideStream() {
    return streaming;
  }

  void details(boolean details) {
    this.details = details;
  }

  /** One event per token; a natural end's last token is the EOS special token, left out of the text. */
  @Override
  byte[] contentEvent(long seed, int from, int to, String text, boolean reasoning, boolean last,
      String finishReason, TokenUsage usage) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(128 * (to - from));
    for (int i = from; i < to; i++) {
      boolean lastToken = last && i == to - 1;
      boolean eos = lastToken && "stop".equals(finishReason);
      int index = i + 1;
      String tokenText = eos ? "</s>" : OutputVocabulary.token(seed, i);
      out.writeBytes(frame(write(g -> {
        g.writeStartObject();
        g.writeNumberField("index", index);
        g.writeObjectFieldStart("token");
        g.writeNumberField("id", eos ? 2 : 1000 + index);
        g.writeStringField("text", tokenText);
        g.writeNumberField("logprob", -0.5);
        g.writeBooleanField("special", eos);
        g.writeEndObject();
        if (lastToken) {
          g.writeStringField("generated_text", OutputVocabulary.text(seed, 0, eos ? index - 1 : index));
        } else {
          g.writeNullField("generated_text");
        }
        if (lastToken && details) {
          g.writeObjectFieldStart("details");
          g.writeStringField("finish_reason", eos ? "eos_token" : "length");
          g.writeNumberField("generated_tokens", index);
          g.writeNullField("seed");
          g.writeNumberField("input_length", usage == null ? 0 : usage.promptTokens());
          g.writeEndObject();
        } else {
          g.writeNullField("details");
        }
        g.writeEndObject();
      })));
    }
    return out.toByteArray();
  }

  @Override
  boolean hasTrailer() {
    return false;
  }

  /**
   * TGI's timing headers on a {@code /generate} answer: {@code x-compute-time} in seconds (arrival to
   * last token), the others in whole milliseconds, truncated as TGI's {@code as_millis} does.
   */
  @Override
  java.util.Map<String, String> completionHeaders(ReportedTimings t) {
    long perToken = t.tokens() == 0 ? 0 : t.inferenceNanos() / t.tokens();
    java.util.Map<String, String> h = new java.util.LinkedHashMap<>();
    h.put("x-compute-type", "gpu+optimized");
    h.put("x-compute-time", t.computeTimeSeconds());
    h.put("x-total-time", Long.toString(t.totalNanos() / 1_000_000));
    h.put("x-validation-time", "0");
    h.put("x-queue-time", Long.toString(t.queueNanos() / 1_000_000));
    h.put("x-inference-time", Long.toString(t.inferenceNanos() / 1_000_000));
    h.put("x-time-per-token", Long.toString(perToken / 1_000_000));
    h.put("x-prompt-tokens", Integer.toString(t.promptTokensComputed()));
    h.put("x-generated-tokens", Integer.toString(t.tokens()));
    return h;
  }

  @Override
  byte[] completion(String reasoning, String text, String finishReason, TokenUsage usage) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("generated_text", text);
      if (details) {
        g.writeObjectFieldStart("details");
        g.writeStringField("finish_reason", "stop".equals(finishReason) ? "eos_token" : "length");
        g.writeNumberField("generated_tokens", usage.completionTokens());
        g.writeNullField("seed");
        g.writeEndObject();
      }
      g.writeEndObject();
    });
  }

  private byte[] error(String message, String type) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("error", message);
      g.writeStringField("error_type", type);
      g.writeEndObject();
    });
  }

  @Override
  byte[] errorBody(ApiError error) {
    return error(error.getMessage(), error.status() == 429 || error.status() == 503 ? "overloaded" : "validation");
  }

  @Override
  byte[] streamError(String message) {
    return frame(error(message, "generation"));
  }
}
