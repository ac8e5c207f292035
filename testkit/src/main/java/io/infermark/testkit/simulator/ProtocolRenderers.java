package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The renderers of the protocols other than OpenAI's chat and completions, each in the byte shapes
 * of the real server as recorded in the wire fixtures: Anthropic Messages, Ollama's native NDJSON,
 * TGI's {@code generate_stream}, llama.cpp's {@code /completion}, Triton's {@code generate_stream}
 * and OpenAI's Responses API. Success, errors before the stream and errors inside it each take
 * the protocol's own shape.
 */
final class ProtocolRenderers {

  private ProtocolRenderers() {}

  static ResponseRenderer of(Endpoint endpoint, JsonFactory json, String hex, long created, String model) {
    return switch (endpoint) {
      case ANTHROPIC_MESSAGES -> new Anthropic(json, "msg_" + hex.substring(0, 24), created, model);
      case OLLAMA_CHAT -> new Ollama(json, created, model, true);
      case OLLAMA_GENERATE -> new Ollama(json, created, model, false);
      case TGI_GENERATE_STREAM, TGI_GENERATE -> new Tgi(json, created, model, endpoint.alwaysStreams());
      case LLAMACPP_COMPLETION -> new LlamaCpp(json, created, model);
      case TRITON_GENERATE_STREAM, TRITON_GENERATE -> new Triton(json, created, model);
      case OPENAI_RESPONSES -> new Responses(json, "resp_" + hex, created, model);
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

  /** The base of renderers that do not share OpenAI's chunk objects. */
  abstract static class Base extends ResponseRenderer {
    Base(JsonFactory json, String id, long created, String model) {
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
  }

  /** {@code event: <type>\ndata: <json>\n\n}. */
  static byte[] typed(String type, byte[] json) {
    return concat(ascii("event: " + type + "\ndata: "), json, ascii("\n\n"));
  }

  // ---- Anthropic Messages ----

  static final class Anthropic extends Base {
    private boolean thinkingOpen;
    private int textIndex;

    Anthropic(JsonFactory json, String id, long created, String model) {
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

  // ---- Ollama native ----

  static final class Ollama extends Base {
    private final boolean chat;

    Ollama(JsonFactory json, long created, String model, boolean chat) {
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

  // ---- TGI generate_stream ----

  static final class Tgi extends Base {
    /** Whether the request asked for {@code details} (the parser carries it as include-usage). */
    private boolean details;

    private final boolean streaming;

    Tgi(JsonFactory json, long created, String model, boolean streaming) {
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

  // ---- llama.cpp /completion ----

  static final class LlamaCpp extends Base {
    LlamaCpp(JsonFactory json, long created, String model) {
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

  // ---- Triton generate_stream ----

  static final class Triton extends Base {
    Triton(JsonFactory json, long created, String model) {
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

  // ---- OpenAI Responses ----

  static final class Responses extends Base {
    private int sequence;
    private boolean reasoningOpen;
    private int messageIndex;

    Responses(JsonFactory json, String id, long created, String model) {
      super(json, id, created, model);
    }

    @Override
    boolean sendsRoleChunk() {
      return true;
    }

    @Override
    void begin() {
      sequence = 0;
      reasoningOpen = false;
      messageIndex = 0;
    }

    private String msgId() {
      return "msg_" + id().substring(5);
    }

    private void response(JsonGenerator g, String status, TokenUsage usage, int reasoning, String incomplete)
        throws IOException {
      g.writeObjectFieldStart("response");
      g.writeStringField("id", id());
      g.writeStringField("object", "response");
      g.writeNumberField("created_at", created());
      g.writeStringField("status", status);
      g.writeStringField("model", model());
      if (incomplete != null) {
        g.writeObjectFieldStart("incomplete_details");
        g.writeStringField("reason", incomplete);
        g.writeEndObject();
      } else {
        g.writeNullField("incomplete_details");
      }
      g.writeArrayFieldStart("output");
      g.writeEndArray();
      if (usage == null) {
        g.writeNullField("usage");
      } else {
        g.writeObjectFieldStart("usage");
        g.writeNumberField("input_tokens", usage.promptTokens());
        g.writeObjectFieldStart("input_tokens_details");
        g.writeNumberField("cached_tokens", reportsCachedTokens() ? cachedPromptTokens() : 0);
        g.writeEndObject();
        g.writeNumberField("output_tokens", usage.completionTokens());
        g.writeObjectFieldStart("output_tokens_details");
        g.writeNumberField("reasoning_tokens", reasoning);
        g.writeEndObject();
        g.writeNumberField("total_tokens", usage.promptTokens() + usage.completionTokens());
        g.writeEndObject();
      }
      g.writeEndObject();
    }

    private byte[] event(String type, Body fields) {
      int seq = sequence++;
      return typed(type, write(g -> {
        g.writeStartObject();
        g.writeStringField("type", type);
        g.writeNumberField("sequence_number", seq);
        fields.write(g);
        g.writeEndObject();
      }));
    }

    private byte[] itemAdded(int index, String type) {
      return event("response.output_item.added", g -> {
        g.writeNumberField("output_index", index);
        g.writeObjectFieldStart("item");
        g.writeStringField("id", (type.equals("message") ? "msg_" : "rs_") + id().substring(5));
        g.writeStringField("type", type);
        g.writeStringField("status", "in_progress");
        if (type.equals("message")) {
          g.writeStringField("role", "assistant");
        }
        g.writeArrayFieldStart("content");
        g.writeEndArray();
        g.writeEndObject();
      });
    }

    private byte[] partAdded(int index) {
      return event("response.content_part.added", g -> {
        g.writeStringField("item_id", msgId());
        g.writeNumberField("output_index", index);
        g.writeNumberField("content_index", 0);
        g.writeObjectFieldStart("part");
        g.writeStringField("type", "output_text");
        g.writeStringField("text", "");
        g.writeArrayFieldStart("annotations");
        g.writeEndArray();
        g.writeEndObject();
      });
    }

    @Override
    byte[] prelude(TokenUsage usage) {
      return concat(event("response.created", g -> response(g, "in_progress", null, 0, null)),
          event("response.in_progress", g -> response(g, "in_progress", null, 0, null)));
    }

    @Override
    byte[] contentEvent(long seed, int from, int to, String text, boolean reasoning, boolean last,
        String finishReason, TokenUsage usage) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(256);
      if (from == 0) {
        reasoningOpen = reasoning;
        messageIndex = reasoning ? 1 : 0;
        out.writeBytes(itemAdded(0, reasoning ? "reasoning" : "message"));
        if (!reasoning) {
          out.writeBytes(partAdded(0));
        }
      } else if (reasoningOpen && !reasoning) {
        reasoningOpen = false;
        out.writeBytes(event("response.output_item.done", g -> {
          g.writeNumberField("output_index", 0);
          g.writeObjectFieldStart("item");
          g.writeStringField("id", "rs_" + id().substring(5));
          g.writeStringField("type", "reasoning");
          g.writeStringField("status", "completed");
          g.writeEndObject();
        }));
        out.writeBytes(itemAdded(1, "message"));
        out.writeBytes(partAdded(1));
      }
      int index = reasoning ? 0 : messageIndex;
      out.writeBytes(event(reasoning ? "response.reasoning_text.delta" : "response.output_text.delta", g -> {
        g.writeStringField("item_id", (reasoning ? "rs_" : "msg_") + id().substring(5));
        g.writeNumberField("output_index", index);
        g.writeNumberField("content_index", 0);
        g.writeStringField("delta", text);
        if (!reasoning) {
          g.writeArrayFieldStart("logprobs");
          g.writeEndArray();
        }
      }));
      return out.toByteArray();
    }

    @Override
    byte[] trailer(long seed, TokenUsage usage, String finishReason, int reasoningTokens) {
      String text = OutputVocabulary.text(seed, reasoningTokens, usage.completionTokens());
      int index = messageIndex;
      boolean complete = !"length".equals(finishReason);
      return concat(
          event("response.output_text.done", g -> {
            g.writeStringField("item_id", msgId());
            g.writeNumberField("output_index", index);
            g.writeNumberField("content_index", 0);
            g.writeStringField("text", text);
          }),
          event("response.output_item.done", g -> {
            g.writeNumberField("output_index", index);
            g.writeObjectFieldStart("item");
            g.writeStringField("id", msgId());
            g.writeStringField("type", "message");
            g.writeStringField("status", complete ? "completed" : "incomplete");
            g.writeStringField("role", "assistant");
            g.writeEndObject();
          }),
          event(complete ? "response.completed" : "response.incomplete", g -> response(g,
              complete ? "completed" : "incomplete", usage, reasoningTokens, complete ? null : "max_output_tokens")));
    }

    @Override
    byte[] completion(String reasoning, String text, String finishReason, TokenUsage usage) {
      boolean complete = !"length".equals(finishReason);
      // Every vocabulary token is a space and a word, so the reasoning text's spaces count its tokens.
      int reasoningTokens = (int) reasoning.chars().filter(c -> c == ' ').count();
      return write(g -> {
        g.writeStartObject();
        g.writeStringField("id", id());
        g.writeStringField("object", "response");
        g.writeNumberField("created_at", created());
        g.writeStringField("status", complete ? "completed" : "incomplete");
        g.writeStringField("model", model());
        if (complete) {
          g.writeNullField("incomplete_details");
        } else {
          g.writeObjectFieldStart("incomplete_details");
          g.writeStringField("reason", "max_output_tokens");
          g.writeEndObject();
        }
        g.writeArrayFieldStart("output");
        if (!reasoning.isEmpty()) {
          g.writeStartObject();
          g.writeStringField("type", "reasoning");
          g.writeArrayFieldStart("content");
          g.writeStartObject();
          g.writeStringField("type", "reasoning_text");
          g.writeStringField("text", reasoning);
          g.writeEndObject();
          g.writeEndArray();
          g.writeEndObject();
        }
        g.writeStartObject();
        g.writeStringField("id", msgId());
        g.writeStringField("type", "message");
        g.writeStringField("role", "assistant");
        g.writeArrayFieldStart("content");
        g.writeStartObject();
        g.writeStringField("type", "output_text");
        g.writeStringField("text", text);
        g.writeEndObject();
        g.writeEndArray();
        g.writeEndObject();
        g.writeEndArray();
        g.writeObjectFieldStart("usage");
        g.writeNumberField("input_tokens", usage.promptTokens());
        g.writeNumberField("output_tokens", usage.completionTokens());
        g.writeObjectFieldStart("output_tokens_details");
        g.writeNumberField("reasoning_tokens", reasoningTokens);
        g.writeEndObject();
        g.writeNumberField("total_tokens", usage.promptTokens() + usage.completionTokens());
        g.writeEndObject();
        g.writeEndObject();
      });
    }

    @Override
    byte[] streamError(String message) {
      return event("error", g -> {
        g.writeStringField("code", "server_error");
        g.writeStringField("message", message);
        g.writeNullField("param");
      });
    }
  }
}
