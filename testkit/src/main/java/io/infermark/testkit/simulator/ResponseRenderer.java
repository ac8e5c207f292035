package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Renders the JSON of one response's chunks (or of its single non-streamed body) in the byte
 * shapes vLLM sends, so clients parse the simulator exactly as they parse vLLM. One instance
 * serves one request on one thread.
 */
abstract class ResponseRenderer {

  private final JsonFactory json;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
  private final String id;
  private final long created;
  private final String model;

  ResponseRenderer(JsonFactory json, String id, long created, String model) {
    this.json = json;
    this.id = id;
    this.created = created;
    this.model = model;
  }

  static ResponseRenderer of(Endpoint endpoint, JsonFactory json, long seed, long sequence, long created,
      String model) {
    String hex = hex16(Mix.mix64(seed, sequence)) + hex16(Mix.mix64(~seed, sequence));
    return endpoint == Endpoint.CHAT
        ? new ChatRenderer(json, "chatcmpl-" + hex, created, model)
        : new CompletionRenderer(json, "cmpl-" + hex, created, model);
  }

  /** {@code v} as 16 lower-case hex digits, zero-padded (what {@code %016x} prints, without a Formatter). */
  static String hex16(long v) {
    char[] c = new char[16];
    for (int i = 15; i >= 0; i--) {
      c[i] = Character.forDigit((int) (v & 0xf), 16);
      v >>>= 4;
    }
    return new String(c);
  }

  /** Whether streams open with a role-only chunk (chat does, legacy completions do not). */
  abstract boolean sendsRoleChunk();

  /** The {@code object} of every streamed chunk. */
  abstract String chunkObject();

  /** The role-only first chunk; {@code usage} is null unless usage goes on every chunk. */
  abstract byte[] roleChunk(TokenUsage usage);

  /** A chunk carrying {@code text}; {@code finishReason} on the last one, {@code usage} when continuous. */
  abstract byte[] contentChunk(String text, String finishReason, TokenUsage usage);

  private static final String MARKER = "@@infermark-text@@";
  private byte[] framedPrefix; // "data: " + a plain content chunk up to its text
  private byte[] framedSuffix; // the rest of that chunk + "\n\n"

  /**
   * Appends the SSE event ({@code data: <json>\n\n}) of a content chunk with no finish reason and
   * no usage, the bulk of every stream, carrying output tokens {@code from..to-1}: byte for byte what
   * {@link #contentChunk} renders for their text, but copied from a prefix and suffix rendered once
   * per response and the vocabulary's words as bytes, so the hot path allocates nothing and runs no
   * JSON generator. The vocabulary's words (a space and lower-case letters) need no JSON escaping.
   */
  final void appendPlainContentEvent(ChunkBuffer out, long seed, int from, int to) {
    if (framedPrefix == null) {
      String sample = new String(contentChunk(MARKER, null, null), java.nio.charset.StandardCharsets.UTF_8);
      int at = sample.indexOf(MARKER);
      framedPrefix = ("data: " + sample.substring(0, at)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      framedSuffix = (sample.substring(at + MARKER.length()) + "\n\n")
          .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
    out.append(framedPrefix);
    for (int i = from; i < to; i++) {
      out.append(OutputVocabulary.tokenBytes(seed, i));
    }
    out.append(framedSuffix);
  }

  /** A chunk carrying reasoning {@code text} (chat only). */
  byte[] reasoningChunk(String text, String finishReason, TokenUsage usage) {
    throw new UnsupportedOperationException("only chat completions carry reasoning");
  }

  /** The whole non-streamed response with reasoning text before the content (chat only). */
  byte[] completion(String reasoning, String text, String finishReason, TokenUsage usage) {
    if (reasoning.isEmpty()) {
      return completion(text, finishReason, usage);
    }
    throw new UnsupportedOperationException("only chat completions carry reasoning");
  }

  /** The {@code choices: []} chunk that reports the final usage; both endpoints send the same shape. */
  final byte[] usageChunk(TokenUsage usage) {
    return render(chunkObject(), g -> {
      g.writeArrayFieldStart("choices");
      g.writeEndArray();
      usage.write(g);
    });
  }

  /** The whole non-streamed response. */
  abstract byte[] completion(String text, String finishReason, TokenUsage usage);

  /** Writes one JSON object with the {@code id, object, created, model} header every shape starts with. */
  final byte[] render(String object, Body body) {
    buffer.reset();
    try (JsonGenerator g = json.createGenerator(buffer)) {
      g.writeStartObject();
      g.writeStringField("id", id);
      g.writeStringField("object", object);
      g.writeNumberField("created", created);
      g.writeStringField("model", model);
      body.write(g);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return buffer.toByteArray();
  }

  /** The fields after the common header. */
  @FunctionalInterface
  interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  /** {@code /v1/chat/completions}: {@code chat.completion.chunk} deltas, then {@code chat.completion}. */
  static final class ChatRenderer extends ResponseRenderer {

    ChatRenderer(JsonFactory json, String id, long created, String model) {
      super(json, id, created, model);
    }

    @Override
    boolean sendsRoleChunk() {
      return true;
    }

    @Override
    String chunkObject() {
      return "chat.completion.chunk";
    }

    @Override
    byte[] roleChunk(TokenUsage usage) {
      return deltaChunk("assistant", "content", "", null, usage);
    }

    @Override
    byte[] contentChunk(String text, String finishReason, TokenUsage usage) {
      return deltaChunk(null, "content", text, finishReason, usage);
    }

    @Override
    byte[] reasoningChunk(String text, String finishReason, TokenUsage usage) {
      return deltaChunk(null, "reasoning_content", text, finishReason, usage);
    }

    /** A chunk whose one choice carries a delta: the role only on the first, the text on all. */
    private byte[] deltaChunk(String role, String field, String content, String finishReason, TokenUsage usage) {
      return render(chunkObject(), g -> {
        g.writeArrayFieldStart("choices");
        g.writeStartObject();
        g.writeNumberField("index", 0);
        g.writeObjectFieldStart("delta");
        if (role != null) {
          g.writeStringField("role", role);
        }
        g.writeStringField(field, content);
        g.writeEndObject();
        g.writeNullField("logprobs");
        g.writeStringField("finish_reason", finishReason);
        if (finishReason != null) {
          g.writeNullField("stop_reason"); // vLLM adds it on the finishing chunk only
        }
        g.writeEndObject();
        g.writeEndArray();
        if (usage != null) {
          usage.write(g);
        }
      });
    }

    @Override
    byte[] completion(String text, String finishReason, TokenUsage usage) {
      return completion("", text, finishReason, usage);
    }

    @Override
    byte[] completion(String reasoning, String text, String finishReason, TokenUsage usage) {
      return render("chat.completion", g -> {
        g.writeArrayFieldStart("choices");
        g.writeStartObject();
        g.writeNumberField("index", 0);
        g.writeObjectFieldStart("message");
        g.writeStringField("role", "assistant");
        if (!reasoning.isEmpty()) {
          g.writeStringField("reasoning_content", reasoning);
        }
        g.writeStringField("content", text);
        g.writeEndObject();
        g.writeNullField("logprobs");
        g.writeStringField("finish_reason", finishReason);
        g.writeNullField("stop_reason");
        g.writeEndObject();
        g.writeEndArray();
        usage.write(g);
      });
    }
  }

  /**
   * {@code /v1/completions}: {@code text_completion} chunks, each with {@code "usage":null} and
   * {@code "stop_reason":null} because vLLM dumps them without excluding unset fields.
   */
  static final class CompletionRenderer extends ResponseRenderer {

    CompletionRenderer(JsonFactory json, String id, long created, String model) {
      super(json, id, created, model);
    }

    @Override
    boolean sendsRoleChunk() {
      return false;
    }

    @Override
    String chunkObject() {
      return "text_completion";
    }

    @Override
    byte[] roleChunk(TokenUsage usage) {
      throw new UnsupportedOperationException("legacy completions have no role chunk");
    }

    @Override
    byte[] contentChunk(String text, String finishReason, TokenUsage usage) {
      return render(chunkObject(), g -> {
        g.writeArrayFieldStart("choices");
        writeChoice(g, text, finishReason);
        g.writeEndArray();
        if (usage == null) {
          g.writeNullField("usage");
        } else {
          usage.write(g);
        }
      });
    }

    @Override
    byte[] completion(String text, String finishReason, TokenUsage usage) {
      return render("text_completion", g -> {
        g.writeArrayFieldStart("choices");
        writeChoice(g, text, finishReason);
        g.writeEndArray();
        usage.write(g);
      });
    }

    private static void writeChoice(JsonGenerator g, String text, String finishReason) throws IOException {
      g.writeStartObject();
      g.writeNumberField("index", 0);
      g.writeStringField("text", text);
      g.writeNullField("logprobs");
      g.writeStringField("finish_reason", finishReason);
      g.writeNullField("stop_reason");
      g.writeEndObject();
    }
  }
}
