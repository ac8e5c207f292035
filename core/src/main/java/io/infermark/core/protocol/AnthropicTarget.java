package io.infermark.core.protocol;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.request.ContentPart;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.stream.StreamDialect;
import io.infermark.core.transport.OutboundRequest;
import java.util.List;
import java.util.Objects;

/**
 * A {@link Target} for Anthropic's Messages API ({@code POST /v1/messages}), streamed as
 * {@code message_start} ... {@code message_stop} events ({@link StreamDialect#ANTHROPIC}).
 *
 * <pre>{@code
 * Target t = AnthropicTarget.messages("https://api.anthropic.com", "claude-sonnet-4-5")
 *     .apiKey(System.getenv("ANTHROPIC_API_KEY"))
 *     .thinkingBudget(2048)
 *     .build();
 * }</pre>
 *
 * <p>The key goes in {@code x-api-key}, with {@code anthropic-version} (default
 * {@value #DEFAULT_VERSION}). System messages become the top-level {@code system} text. The API
 * requires {@code max_tokens}: a request without one gets {@link Builder#defaultMaxTokens}.
 * {@link Builder#thinkingBudget} turns on extended thinking; thinking arrives as reasoning chunks
 * and {@code usage.output_tokens_details.thinking_tokens} as reasoning tokens. Tools are passed as
 * the request's extra body ({@code tools}, {@code tool_choice}); {@code tool_use} blocks are
 * recorded as tool-call chunks. {@code ignore_eos} has no Messages API equivalent and is not sent.
 * Shared options (transport, timeouts, bounds) are those of {@link HttpTarget.Builder}.
 */
public final class AnthropicTarget extends HttpTarget {

  /** The {@code anthropic-version} sent unless {@link Builder#version} says otherwise. */
  public static final String DEFAULT_VERSION = "2023-06-01";

  private final String version;
  private final int defaultMaxTokens;
  private final int thinkingBudget;

  private AnthropicTarget(Builder b) {
    super(b);
    this.version = b.version;
    this.defaultMaxTokens = b.defaultMaxTokens;
    this.thinkingBudget = b.thinkingBudget;
  }

  /** A Messages API target; a {@code baseUrl} with no path gets {@code /v1}. */
  public static Builder messages(String baseUrl, String model) {
    return new Builder(baseUrl, model);
  }

  @Override
  String path(boolean stream) {
    return "messages";
  }

  @Override
  StreamDialect dialect() {
    return StreamDialect.ANTHROPIC;
  }

  @Override
  HttpExchange.BodyReader bodyReader() {
    return WholeBodies::anthropic;
  }

  @Override
  String protocolName() {
    return "messages";
  }

  @Override
  void protocolHeaders(List<OutboundRequest.Header> headers) {
    if (!apiKey().isEmpty()) {
      headers.add(new OutboundRequest.Header("x-api-key", apiKey()));
    }
    headers.add(new OutboundRequest.Header("anthropic-version", version));
  }

  @Override
  boolean carriesMedia(InferenceRequest request) {
    return true;
  }

  /**
   * Anthropic's content blocks: {@code {"type":"text","text"}} and {@code {"type":"image","source":...}}
   * with a {@code base64} source ({@code media_type}, {@code data}) or a {@code url} source. The
   * Messages API takes no audio: an audio part fails the request.
   */
  static void encodeParts(Message m, ArrayNode content) {
    for (ContentPart part : m.parts()) {
      if (part instanceof ContentPart.Text t) {
        content.addObject().put("type", "text").put("text", t.text());
      } else if (part instanceof ContentPart.ImageUrl i) {
        content.addObject().put("type", "image").putObject("source").put("type", "url").put("url", i.url());
      } else if (part instanceof ContentPart.ImageData i) {
        content.addObject().put("type", "image").putObject("source").put("type", "base64")
            .put("media_type", i.mediaType()).put("data", i.base64());
      } else if (part instanceof ContentPart.Audio a) {
        throw new IllegalArgumentException(
            "Anthropic's Messages API takes no audio input; the prompt has an audio part (" + a + ")");
      }
    }
  }

  @Override
  ObjectNode encode(InferenceRequest request) {
    GenerationParams p = request.params();
    ObjectNode root = MAPPER.createObjectNode();
    root.put("model", model());
    root.put("max_tokens", p.maxTokens().orElse(defaultMaxTokens));
    StringBuilder system = new StringBuilder();
    ArrayNode messages = MAPPER.createArrayNode();
    for (Message m : request.prompt().messages()) {
      if (m.role().equals("system")) {
        if (m.hasMedia()) {
          throw new IllegalArgumentException("Anthropic's system prompt is text only; a system message has an image "
              + "or audio part");
        }
        system.append(system.length() == 0 ? "" : "\n\n").append(m.content());
      } else {
        ObjectNode message = messages.addObject().put("role", m.role());
        if (m.hasMedia()) {
          encodeParts(m, message.putArray("content"));
        } else {
          message.put("content", m.content());
        }
      }
    }
    if (system.length() > 0) {
      root.put("system", system.toString());
    }
    root.set("messages", messages);
    if (p.stream()) {
      root.put("stream", true);
    }
    p.temperature().ifPresent(t -> root.put("temperature", t));
    if (thinkingBudget > 0) {
      root.putObject("thinking").put("type", "enabled").put("budget_tokens", thinkingBudget);
    }
    return root;
  }

  /** Configures an {@link AnthropicTarget}; the options every HTTP target has are in {@link HttpTarget.Builder}. */
  public static final class Builder extends HttpTarget.Builder<AnthropicTarget, Builder> {
    private String version = DEFAULT_VERSION;
    private int defaultMaxTokens = 1024;
    private int thinkingBudget;

    private Builder(String baseUrl, String model) {
      super(baseUrl, model, "/v1", true);
    }

    @Override
    Builder self() {
      return this;
    }

    /** The {@code anthropic-version} header (default {@value AnthropicTarget#DEFAULT_VERSION}). */
    public Builder version(String version) {
      Objects.requireNonNull(version, "version");
      if (version.isBlank() || version.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
        throw new IllegalArgumentException("version must be a non-blank header value, was '" + version + "'");
      }
      this.version = version;
      return this;
    }

    /** The {@code max_tokens} of requests that set none (default 1024); the API requires the field. */
    public Builder defaultMaxTokens(int tokens) {
      if (tokens <= 0) {
        throw new IllegalArgumentException("defaultMaxTokens must be > 0, was " + tokens);
      }
      this.defaultMaxTokens = tokens;
      return this;
    }

    /**
     * Turns on extended thinking with this many {@code budget_tokens} (the API's minimum is 1024;
     * 0, the default, leaves thinking off).
     */
    public Builder thinkingBudget(int tokens) {
      if (tokens < 0) {
        throw new IllegalArgumentException("thinkingBudget must be >= 0, was " + tokens);
      }
      this.thinkingBudget = tokens;
      return this;
    }

    @Override
    public AnthropicTarget build() {
      return new AnthropicTarget(this);
    }
  }
}
