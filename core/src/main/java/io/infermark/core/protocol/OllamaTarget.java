package io.infermark.core.protocol;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.stream.StreamDialect;

/**
 * A {@link Target} for Ollama's native API, {@code POST /api/chat} or {@code /api/generate},
 * streamed as one JSON object per line ({@link StreamDialect#OLLAMA_NDJSON}).
 *
 * <pre>{@code
 * Target t = OllamaTarget.chat("http://localhost:11434", "llama3.2").build();
 * }</pre>
 *
 * <p>{@code max_tokens} and temperature go in {@code options} as {@code num_predict} and
 * {@code temperature}; {@code stream} is always sent, since Ollama streams unless told not to.
 * The last line's {@code load_duration}, {@code prompt_eval_duration}, {@code eval_duration} and
 * {@code total_duration} (nanoseconds) are kept as server timings under those names, and its
 * {@code prompt_eval_count} and {@code eval_count} as usage. An API key, for an Ollama behind a
 * proxy, is sent as a bearer token. Shared options are those of {@link HttpTarget.Builder}.
 */
public final class OllamaTarget extends HttpTarget {

  private final boolean chat;

  private OllamaTarget(Builder b) {
    super(b);
    this.chat = b.chat;
  }

  /** A {@code /api/chat} target (messages); {@code baseUrl} is the server's root, e.g. {@code http://localhost:11434}. */
  public static Builder chat(String baseUrl, String model) {
    return new Builder(baseUrl, model, true);
  }

  /** A {@code /api/generate} target (one prompt text); {@code baseUrl} is the server's root. */
  public static Builder generate(String baseUrl, String model) {
    return new Builder(baseUrl, model, false);
  }

  @Override
  String path(boolean stream) {
    return chat ? "api/chat" : "api/generate";
  }

  @Override
  StreamDialect dialect() {
    return StreamDialect.OLLAMA_NDJSON;
  }

  @Override
  HttpExchange.BodyReader bodyReader() {
    return WholeBodies.asOneEvent(StreamDialect.OLLAMA_NDJSON);
  }

  @Override
  String protocolName() {
    return chat ? "chat" : "generate";
  }

  @Override
  ObjectNode encode(InferenceRequest request) {
    GenerationParams p = request.params();
    ObjectNode root = MAPPER.createObjectNode();
    root.put("model", model());
    if (chat) {
      ArrayNode messages = root.putArray("messages");
      for (Message m : request.prompt().messages()) {
        messages.addObject().put("role", m.role()).put("content", m.content());
      }
    } else {
      root.put("prompt", request.prompt().text());
    }
    root.put("stream", p.stream());
    if (p.maxTokens().isPresent() || p.temperature().isPresent()) {
      ObjectNode options = root.putObject("options");
      p.maxTokens().ifPresent(n -> options.put("num_predict", n));
      p.temperature().ifPresent(t -> options.put("temperature", t));
    }
    return root;
  }

  /** Configures an {@link OllamaTarget}; the options every HTTP target has are in {@link HttpTarget.Builder}. */
  public static final class Builder extends HttpTarget.Builder<OllamaTarget, Builder> {
    private final boolean chat;

    private Builder(String baseUrl, String model, boolean chat) {
      super(baseUrl, model, "", true);
      this.chat = chat;
    }

    @Override
    Builder self() {
      return this;
    }

    @Override
    public OllamaTarget build() {
      return new OllamaTarget(this);
    }
  }
}
