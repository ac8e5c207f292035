package io.infermark.core.protocol;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.stream.StreamDialect;

/**
 * A {@link Target} for OpenAI's Responses API, {@code POST /v1/responses} (OpenAI, vLLM), streamed
 * as typed {@code response.*} events ({@link StreamDialect#OPENAI_RESPONSES}).
 *
 * <pre>{@code
 * Target t = OpenAiResponsesTarget.responses("http://localhost:8000/v1", "openai/gpt-oss-20b").build();
 * }</pre>
 *
 * <p>The prompt's messages are sent as {@code input}, {@code max_tokens} as
 * {@code max_output_tokens}. Text arrives in {@code response.output_text.delta}, reasoning in
 * {@code response.reasoning_text.delta} or {@code response.reasoning_summary_text.delta}, and
 * usage (with reasoning and cached tokens) in {@code response.completed}. Options such as
 * {@code reasoning} or {@code tools} go in the request's extra body. The API key is sent as a
 * bearer token. Shared options are those of {@link HttpTarget.Builder}.
 */
public final class OpenAiResponsesTarget extends HttpTarget {

  private OpenAiResponsesTarget(Builder b) {
    super(b);
  }

  /** A Responses API target; {@code baseUrl} ends in {@code /v1}, and a URL with no path gets it. */
  public static Builder responses(String baseUrl, String model) {
    return new Builder(baseUrl, model);
  }

  @Override
  String path(boolean stream) {
    return "responses";
  }

  @Override
  StreamDialect dialect() {
    return StreamDialect.OPENAI_RESPONSES;
  }

  @Override
  HttpExchange.BodyReader bodyReader() {
    return WholeBodies::responses;
  }

  @Override
  String protocolName() {
    return "responses";
  }

  @Override
  ObjectNode encode(InferenceRequest request) {
    GenerationParams p = request.params();
    ObjectNode root = MAPPER.createObjectNode();
    root.put("model", model());
    ArrayNode input = root.putArray("input");
    for (Message m : request.prompt().messages()) {
      input.addObject().put("role", m.role()).put("content", m.content());
    }
    if (p.stream()) {
      root.put("stream", true);
    }
    p.maxTokens().ifPresent(n -> root.put("max_output_tokens", n));
    p.temperature().ifPresent(t -> root.put("temperature", t));
    return root;
  }

  /** Configures an {@link OpenAiResponsesTarget}; the options every HTTP target has are in {@link HttpTarget.Builder}. */
  public static final class Builder extends HttpTarget.Builder<OpenAiResponsesTarget, Builder> {
    private Builder(String baseUrl, String model) {
      super(baseUrl, model, "/v1", true);
    }

    @Override
    Builder self() {
      return this;
    }

    @Override
    public OpenAiResponsesTarget build() {
      return new OpenAiResponsesTarget(this);
    }
  }
}
