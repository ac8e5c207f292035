package io.infermark.core.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.stream.StreamDialect;

/**
 * A {@link Target} for Hugging Face TGI's native {@code POST /generate_stream} (one event per
 * token, {@link StreamDialect#TGI_GENERATE}), or {@code /generate} for requests that do not stream.
 *
 * <pre>{@code
 * Target t = TgiTarget.generate("http://localhost:8080").build();
 * }</pre>
 *
 * <p>TGI serves one model and takes no model name. The prompt's text is sent as {@code inputs};
 * {@code max_tokens} as {@code parameters.max_new_tokens}; {@code parameters.details} is true
 * (unless {@link Builder#details} turns it off) so the last event reports {@code input_length}
 * and {@code generated_tokens} as usage. Every token event counts one token, the EOS special
 * token included. Validation and overload errors arrive inside a 200 stream and are stream errors.
 * The timing headers of a {@code /generate} answer ({@code x-compute-time} in seconds;
 * {@code x-total-time}, {@code x-validation-time}, {@code x-queue-time}, {@code x-inference-time},
 * {@code x-time-per-token} in ms) are recorded as server timings under their lower-case names.
 * An API key (Inference Endpoints) is sent as a bearer token. Shared options are those of
 * {@link HttpTarget.Builder}.
 */
public final class TgiTarget extends HttpTarget {

  private final boolean details;

  private TgiTarget(Builder b) {
    super(b);
    this.details = b.details;
  }

  /** A TGI target; {@code baseUrl} is the server's root, e.g. {@code http://localhost:8080}. */
  public static Builder generate(String baseUrl) {
    return new Builder(baseUrl);
  }

  @Override
  String path(boolean stream) {
    return stream ? "generate_stream" : "generate";
  }

  @Override
  StreamDialect dialect() {
    return StreamDialect.TGI_GENERATE;
  }

  @Override
  HttpExchange.BodyReader bodyReader() {
    return WholeBodies::tgi;
  }

  @Override
  HttpExchange.HeadReader headReader() {
    return TgiTimingHeaders::report;
  }

  @Override
  String protocolName() {
    return "generate";
  }

  @Override
  ObjectNode encode(InferenceRequest request) {
    GenerationParams p = request.params();
    ObjectNode root = MAPPER.createObjectNode();
    root.put("inputs", request.prompt().text());
    ObjectNode parameters = root.putObject("parameters");
    p.maxTokens().ifPresent(n -> parameters.put("max_new_tokens", n));
    p.temperature().ifPresent(t -> parameters.put("temperature", t));
    parameters.put("details", details);
    return root;
  }

  /** Configures a {@link TgiTarget}; the options every HTTP target has are in {@link HttpTarget.Builder}. */
  public static final class Builder extends HttpTarget.Builder<TgiTarget, Builder> {
    private boolean details = true;

    private Builder(String baseUrl) {
      super(baseUrl, "", "", false);
    }

    @Override
    Builder self() {
      return this;
    }

    /** Ask for {@code parameters.details} (default true), the only source of TGI's usage. */
    public Builder details(boolean details) {
      this.details = details;
      return this;
    }

    @Override
    public TgiTarget build() {
      return new TgiTarget(this);
    }
  }
}
