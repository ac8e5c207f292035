package io.infermark.core.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.stream.StreamDialect;

/**
 * A {@link Target} for llama.cpp's native {@code POST /completion}
 * ({@link StreamDialect#LLAMACPP_COMPLETION}), ending with a {@code stop: true} event.
 *
 * <pre>{@code
 * Target t = LlamaCppTarget.completion("http://localhost:8080").build();
 * }</pre>
 *
 * <p>llama.cpp serves one model and takes no model name. The prompt's text is sent as
 * {@code prompt}, {@code max_tokens} as {@code n_predict}, and {@code ignore_eos} as is. The last
 * event's {@code tokens_evaluated} and {@code tokens_predicted} are usage, and its
 * {@code timings} (milliseconds: {@code prompt_ms}, {@code predicted_ms}, ...) are kept as server
 * timings named {@code timings.<key>}. An API key ({@code --api-key}) is sent as a bearer token.
 * Shared options are those of {@link HttpTarget.Builder}.
 */
public final class LlamaCppTarget extends HttpTarget {

  private LlamaCppTarget(Builder b) {
    super(b);
  }

  /** A {@code /completion} target; {@code baseUrl} is the server's root, e.g. {@code http://localhost:8080}. */
  public static Builder completion(String baseUrl) {
    return new Builder(baseUrl);
  }

  @Override
  String path(boolean stream) {
    return "completion";
  }

  @Override
  StreamDialect dialect() {
    return StreamDialect.LLAMACPP_COMPLETION;
  }

  @Override
  HttpExchange.BodyReader bodyReader() {
    return WholeBodies.asOneEvent(StreamDialect.LLAMACPP_COMPLETION);
  }

  @Override
  String protocolName() {
    return "completion";
  }

  @Override
  ObjectNode encode(InferenceRequest request) {
    GenerationParams p = request.params();
    ObjectNode root = MAPPER.createObjectNode();
    root.put("prompt", request.prompt().text());
    p.maxTokens().ifPresent(n -> root.put("n_predict", n));
    p.temperature().ifPresent(t -> root.put("temperature", t));
    if (p.ignoreEos()) {
      root.put("ignore_eos", true);
    }
    root.put("stream", p.stream());
    return root;
  }

  /** Configures a {@link LlamaCppTarget}; the options every HTTP target has are in {@link HttpTarget.Builder}. */
  public static final class Builder extends HttpTarget.Builder<LlamaCppTarget, Builder> {
    private Builder(String baseUrl) {
      super(baseUrl, "", "", false);
    }

    @Override
    Builder self() {
      return this;
    }

    @Override
    public LlamaCppTarget build() {
      return new LlamaCppTarget(this);
    }
  }
}
