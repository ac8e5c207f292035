package io.infermark.core.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.stream.StreamDialect;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A {@link Target} for Triton's generate extension, {@code POST /v2/models/{model}/generate_stream}
 * ({@link StreamDialect#TRITON_GENERATE}), or {@code /generate} for requests that do not stream.
 *
 * <pre>{@code
 * Target t = TritonTarget.generate("http://localhost:8000", "ensemble").build();
 * }</pre>
 *
 * <p>The body names the model's inputs: the prompt's text as {@code text_input} and
 * {@code max_tokens} as {@code max_tokens} (TensorRT-LLM's ensemble; {@link Builder#textInput} and
 * {@link Builder#maxTokensInput} rename them), and {@code stream} as the request streams. Triton
 * reports no usage or finish reason: output tokens are counted from the stream. Shared options are
 * those of {@link HttpTarget.Builder}.
 */
public final class TritonTarget extends HttpTarget {

  private final String encodedModel;
  private final String textInput;
  private final String maxTokensInput;

  private TritonTarget(Builder b) {
    super(b);
    this.encodedModel = URLEncoder.encode(model(), StandardCharsets.UTF_8).replace("+", "%20");
    this.textInput = b.textInput;
    this.maxTokensInput = b.maxTokensInput;
  }

  /** A target for {@code model}; {@code baseUrl} is the server's root, e.g. {@code http://localhost:8000}. */
  public static Builder generate(String baseUrl, String model) {
    return new Builder(baseUrl, model);
  }

  @Override
  String path(boolean stream) {
    return "v2/models/" + encodedModel + (stream ? "/generate_stream" : "/generate");
  }

  @Override
  StreamDialect dialect() {
    return StreamDialect.TRITON_GENERATE;
  }

  @Override
  HttpExchange.BodyReader bodyReader() {
    return WholeBodies.asOneEvent(StreamDialect.TRITON_GENERATE);
  }

  @Override
  String protocolName() {
    return "generate";
  }

  @Override
  ObjectNode encode(InferenceRequest request) {
    GenerationParams p = request.params();
    ObjectNode root = MAPPER.createObjectNode();
    root.put(textInput, request.prompt().text());
    p.maxTokens().ifPresent(n -> root.put(maxTokensInput, n));
    p.temperature().ifPresent(t -> root.put("temperature", t));
    root.put("stream", p.stream());
    return root;
  }

  /** Configures a {@link TritonTarget}; the options every HTTP target has are in {@link HttpTarget.Builder}. */
  public static final class Builder extends HttpTarget.Builder<TritonTarget, Builder> {
    private String textInput = "text_input";
    private String maxTokensInput = "max_tokens";

    private Builder(String baseUrl, String model) {
      super(baseUrl, model, "", true);
    }

    @Override
    Builder self() {
      return this;
    }

    /** The name of the model's text input (default {@code text_input}). */
    public Builder textInput(String name) {
      this.textInput = nonBlank(name, "textInput");
      return this;
    }

    /** The name of the model's output-length input (default {@code max_tokens}). */
    public Builder maxTokensInput(String name) {
      this.maxTokensInput = nonBlank(name, "maxTokensInput");
      return this;
    }

    private static String nonBlank(String s, String what) {
      Objects.requireNonNull(s, what);
      if (s.isBlank()) {
        throw new IllegalArgumentException(what + " must not be blank");
      }
      return s;
    }

    @Override
    public TritonTarget build() {
      return new TritonTarget(this);
    }
  }
}
