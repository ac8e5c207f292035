package io.infermark.core.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.capture.StreamObserver;
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
 * {@link Builder#maxTokensInput} rename them), {@code stream} as the request streams, and
 * {@code "return_num_output_tokens": true} unless {@link Builder#returnNumOutputTokens} turned it off.
 * Triton reports no usage or finish reason: output tokens are counted from the stream, each event's
 * from its {@code num_output_tokens} where the server sends one, else one per event that carries text.
 * Shared options are those of {@link HttpTarget.Builder}.
 */
public final class TritonTarget extends HttpTarget {

  private final String encodedModel;
  private final String textInput;
  private final String maxTokensInput;
  private final boolean returnNumOutputTokens;

  private TritonTarget(Builder b) {
    super(b);
    this.encodedModel = URLEncoder.encode(model(), StandardCharsets.UTF_8).replace("+", "%20");
    this.textInput = b.textInput;
    this.maxTokensInput = b.maxTokensInput;
    this.returnNumOutputTokens = b.returnNumOutputTokens;
  }

  /** Whether each request asks for {@code num_output_tokens}, the tokens of each event (see the builder). */
  public boolean returnsNumOutputTokens() {
    return returnNumOutputTokens;
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
    if (returnNumOutputTokens) {
      // a top-level field: an input where the model declares one (Triton's generate extension), else a parameter
      root.put(TokenCountRefusal.INPUT, true);
    }
    return root;
  }

  @Override
  StreamObserver observing(StreamObserver observer) {
    return returnNumOutputTokens ? TokenCountRefusal.hinting(observer) : observer;
  }

  /** Whether it asks for {@code num_output_tokens}, on the one line every HTTP target's {@code toString()} is. */
  @Override
  String details() {
    return returnNumOutputTokens ? ", num_output_tokens" : "";
  }

  /** Configures a {@link TritonTarget}; the options every HTTP target has are in {@link HttpTarget.Builder}. */
  public static final class Builder extends HttpTarget.Builder<TritonTarget, Builder> {
    private String textInput = "text_input";
    private String maxTokensInput = "max_tokens";
    private boolean returnNumOutputTokens = true;

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

    /**
     * Ask for each event's token count (default: on): the body's {@code "return_num_output_tokens": true}, which
     * Triton's generate extension passes as that input where the model declares it (the vLLM backend from r24.12,
     * TensorRT-LLM's {@code tensorrt_llm} and BLS models, which then send each event's {@code num_output_tokens}),
     * else as a request parameter. Without a count a server that sends several tokens in one event is counted
     * one token per event. An older vLLM backend takes request parameters as sampling parameters and refuses this
     * one; its failure message then says to turn this off, as does a refusal by any model that names it. A
     * {@code num_output_tokens} the server sends unasked is read either way.
     */
    public Builder returnNumOutputTokens(boolean ask) {
      this.returnNumOutputTokens = ask;
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
