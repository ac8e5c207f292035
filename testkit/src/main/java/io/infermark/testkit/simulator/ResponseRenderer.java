package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.testkit.simulator.server.ChunkBuffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Renders the JSON of one response's chunks (or of its single non-streamed body) in the byte
 * shapes vLLM sends, so clients parse the simulator exactly as they parse vLLM. One instance
 * serves one request on one thread.
 *
 * <p>The defaults render OpenAI's shapes (role chunk, {@code data:} framing, usage chunk and
 * {@code [DONE]}, OpenAI error objects); the other protocols' renderers
 * ({@link ProtocolRenderer}) override the framing, prelude, content events, trailer and error
 * shapes, so every protocol is served from the same engine and timelines.
 */
abstract class ResponseRenderer {

  private final JsonFactory json;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(256);
  private final String id;
  private final long created;
  private final String model;
  private java.util.function.Supplier<SequenceTimeline> engineTimeline = () -> null;
  private boolean reportsCachedTokens;

  ResponseRenderer(JsonFactory json, String id, long created, String model) {
    this.json = json;
    this.id = id;
    this.created = created;
    this.model = model;
  }

  static ResponseRenderer of(Endpoint endpoint, JsonFactory json, long seed, long sequence, long created,
      String model) {
    String hex = hex16(Mix.mix64(seed, sequence)) + hex16(Mix.mix64(~seed, sequence));
    return switch (endpoint) {
      case CHAT -> new ChatRenderer(json, "chatcmpl-" + hex, created, model);
      case COMPLETIONS -> new CompletionRenderer(json, "cmpl-" + hex, created, model);
      default -> ProtocolRenderer.of(endpoint, json, hex, created, model);
    };
  }

  static final byte[] DATA = "data: ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  static final byte[] EVENT_END = "\n\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  static final byte[] DONE_EVENT = "data: [DONE]\n\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /** {@code data: <json>\n\n}. */
  static byte[] frame(byte[] json) {
    byte[] out = new byte[DATA.length + json.length + EVENT_END.length];
    System.arraycopy(DATA, 0, out, 0, DATA.length);
    System.arraycopy(json, 0, out, DATA.length, json.length);
    System.arraycopy(EVENT_END, 0, out, DATA.length + json.length, EVENT_END.length);
    return out;
  }

  // ---- protocol hooks; the defaults are OpenAI's ----

  /** Resets per-stream state: a stream's events, or a dry run of them, begin. */
  void begin() {}

  /** Whether the stream's output may start with reasoning tokens. */
  boolean carriesReasoning() {
    return sendsRoleChunk();
  }

  /** The framed events sent with the first token, before its content (OpenAI chat: the role chunk). */
  byte[] prelude(TokenUsage usage) {
    return frame(roleChunk(usage));
  }

  /** Whether plain content events may take {@link #appendPlainContentEvent}'s fast path. */
  boolean plainFastPath() {
    return true;
  }

  /**
   * The framed event(s) carrying output tokens {@code from..to-1}, whose text is {@code text}.
   *
   * @param last whether they end the output
   * @param usage the running usage when it goes on every chunk, else null
   */
  byte[] contentEvent(long seed, int from, int to, String text, boolean reasoning, boolean last,
      String finishReason, TokenUsage usage) {
    return frame(reasoning ? reasoningChunk(text, last ? finishReason : null, usage)
        : contentChunk(text, last ? finishReason : null, usage));
  }

  /** Whether OpenAI's usage chunk (when asked for) and {@code [DONE]} end the stream. */
  boolean openAiTrailer() {
    return true;
  }

  /** Whether a protocol without {@link #openAiTrailer()} sends events after the last token. */
  boolean hasTrailer() {
    return true;
  }

  /** The framed events after the last token, for protocols without {@link #openAiTrailer()}. */
  byte[] trailer(long seed, TokenUsage usage, String finishReason, int reasoningTokens) {
    return new byte[0];
  }

  /** The Content-Type of a streamed response. */
  String streamContentType() {
    return "text/event-stream; charset=utf-8";
  }

  /** The body of an error answered before the stream, in the protocol's shape. */
  byte[] errorBody(ApiError error) {
    return error.toJson(json);
  }

  /** Whether errors before the stream are sent as a 200 stream of one error event (TGI's generate_stream). */
  boolean errorsInsideStream() {
    return false;
  }

  /** The framed error event(s) that end a stream failing midway, terminator included. */
  byte[] streamError(String message) {
    byte[] error = ApiError.internal(message).toJson(json);
    byte[] framed = frame(error);
    byte[] out = java.util.Arrays.copyOf(framed, framed.length + DONE_EVENT.length);
    System.arraycopy(DONE_EVENT, 0, out, framed.length, DONE_EVENT.length);
    return out;
  }

  /** A content event of the stream's shape cut off before its closing brackets: invalid JSON. */
  byte[] malformedEvent() {
    byte[] chunk = contentChunk(" the", null, null);
    String cut = new String(chunk, 0, chunk.length - 3, java.nio.charset.StandardCharsets.UTF_8);
    return ("data: " + cut + "\n\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Where the durations the protocol reports come from: the request's engine timeline, read when rendered. */
  final void engineTimeline(java.util.function.Supplier<SequenceTimeline> timeline) {
    this.engineTimeline = timeline;
  }

  /**
   * Whether usage reports the prompt tokens found in the prefix cache ({@code prompt_tokens_details.cached_tokens},
   * as vLLM does with {@code --enable-prompt-tokens-details}): on when the engine caches prefixes.
   */
  final void reportCachedTokens(boolean report) {
    this.reportsCachedTokens = report;
  }

  /** True when usage reports cached prompt tokens (see {@link #reportCachedTokens}). */
  final boolean reportsCachedTokens() {
    return reportsCachedTokens;
  }

  /**
   * The prompt tokens the engine found in its prefix cache at the request's first admission (its ground truth,
   * {@link SequenceTimeline#cachedPromptTokens()}); 0 before admission or without an engine timeline.
   */
  final int cachedPromptTokens() {
    SequenceTimeline t = engineTimeline.get();
    return t == null ? 0 : t.cachedPromptTokens();
  }

  /** The cached count usage objects carry: {@link #cachedPromptTokens()} when reported, else -1 (the field is left out). */
  final int cachedTokensToReport() {
    return reportsCachedTokens ? cachedPromptTokens() : -1;
  }

  /** The durations the server reports now, from the engine's timeline ({@link ReportedTimings#NONE} without one). */
  final ReportedTimings reportedTimings() {
    return ReportedTimings.of(engineTimeline.get());
  }

  /** Header fields a whole (non-streamed) answer carries besides its Content-Type; none by default. */
  java.util.Map<String, String> completionHeaders(ReportedTimings timings) {
    return java.util.Map.of();
  }

  final JsonFactory json() {
    return json;
  }

  final String id() {
    return id;
  }

  final long created() {
    return created;
  }

  final String model() {
    return model;
  }

  /** Writes one JSON value with a fresh generator; for shapes without the common header. */
  final byte[] write(Body body) {
    buffer.reset();
    try (JsonGenerator g = json.createGenerator(buffer)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return buffer.toByteArray();
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
      usage.write(g, cachedTokensToReport());
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
          usage.write(g, cachedTokensToReport());
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
        usage.write(g, cachedTokensToReport());
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
          usage.write(g, cachedTokensToReport());
        }
      });
    }

    @Override
    byte[] completion(String text, String finishReason, TokenUsage usage) {
      return render("text_completion", g -> {
        g.writeArrayFieldStart("choices");
        writeChoice(g, text, finishReason);
        g.writeEndArray();
        usage.write(g, cachedTokensToReport());
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
