package io.infermark.core.protocol;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.request.ContentPart;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.stream.OpenAiResponses;
import io.infermark.core.stream.StreamDialect;
import io.infermark.core.transport.OkHttpTransport;
import io.infermark.core.transport.Transport;
import io.infermark.core.transport.netty.NettyTransport;
import java.util.Locale;

/**
 * A {@link Target} for OpenAI-compatible servers ({@code /v1/chat/completions} and
 * {@code /v1/completions}): OpenAI, vLLM, SGLang, TGI, llama.cpp, Ollama's {@code /v1}, LM Studio
 * and the infermark simulator. Streams by default, asking for {@code stream_options.include_usage}
 * so output token counts come from the server.
 *
 * <pre>{@code
 * Target t = OpenAiTarget.chat("http://localhost:8000/v1", "meta-llama/Llama-3.1-8B-Instruct")
 *     .apiKey(System.getenv().getOrDefault("API_KEY", ""))
 *     .build();
 * }</pre>
 *
 * <p>{@link #chat} and {@link #completions} take the base URL ({@code .../v1}) and add {@code /v1} to one
 * without a path; {@link #at} takes the endpoint's whole URL and posts to exactly that, for a server mounted
 * at its root or under another prefix.
 *
 * <p>The protocol (encoding requests, decoding the SSE stream or a whole JSON body) is this class;
 * moving the bytes is its {@link Transport}'s job ({@link HttpTarget.Builder#transport}). The default is the
 * event-loop {@link NettyTransport}: the target is then {@linkplain #isAsync() asynchronous}, the
 * engine starts requests from its scheduling thread, and every stream is read on one I/O thread
 * that stamps each chunk at the read that completed it. With {@link OkHttpTransport}
 * ({@link HttpTarget.Builder#httpClient}, for a user's own {@code OkHttpClient} with its proxies, interceptors
 * or custom TLS) each request runs on a thread of its own.
 *
 * <p>No hidden caps: the transport's pool is sized from the load ({@link #prepare}); the read
 * timeout bounds the silence between two reads (from the moment the request is sent), not the
 * response, and the call timeout bounds the whole request. The API key is sent as a bearer token;
 * it, the value of every header a request adds and URL userinfo never appear in {@code toString()},
 * records or errors. TLS is verified unless {@link HttpTarget.Builder#insecureTls(boolean)} says
 * otherwise; redirects are followed only when {@link HttpTarget.Builder#followRedirects(boolean)} is on.
 */
public final class OpenAiTarget extends HttpTarget {

  /** Which OpenAI endpoint to call. */
  public enum Endpoint {
    /** {@code POST /chat/completions} with {@code messages}. */
    CHAT("chat/completions"),
    /** {@code POST /completions} (legacy) with {@code prompt}. */
    COMPLETIONS("completions");

    private final String path;

    Endpoint(String path) {
      this.path = path;
    }
  }

  private final Endpoint endpoint;
  private final boolean includeUsage;
  private final boolean continuousUsage;
  private final boolean maxCompletionTokens;
  private final boolean contentParts;

  private OpenAiTarget(Builder b) {
    super(b);
    this.endpoint = b.endpoint;
    this.includeUsage = b.includeUsage;
    this.continuousUsage = b.continuousUsage;
    this.maxCompletionTokens = b.maxCompletionTokens;
    this.contentParts = b.contentParts;
  }

  /** A chat-completions target. {@code baseUrl} ends in {@code /v1}; a URL with no path gets {@code /v1} added. */
  public static Builder chat(String baseUrl, String model) {
    return new Builder(baseUrl, model, Endpoint.CHAT);
  }

  /** A legacy completions target. {@code baseUrl} ends in {@code /v1}; a URL with no path gets {@code /v1} added. */
  public static Builder completions(String baseUrl, String model) {
    return new Builder(baseUrl, model, Endpoint.COMPLETIONS);
  }

  /**
   * A target that posts to exactly {@code endpointUrl}, for a server mounted anywhere: at the root
   * ({@code http://127.0.0.1:8080/chat/completions}, as Jlama serves), under {@code /v1}, or under any prefix
   * ({@code https://gateway.example/team/llm/v1/completions}). The URL ends in {@code /chat/completions} (a chat
   * target) or {@code /completions} (legacy completions); what comes before is kept as given, nothing is added.
   *
   * @throws IllegalArgumentException if the URL is not http(s) or ends in neither path
   */
  public static Builder at(String endpointUrl, String model) {
    java.util.Objects.requireNonNull(endpointUrl, "endpointUrl");
    String u = endpointUrl.strip();
    int query = u.indexOf('?');
    String path = query >= 0 ? u.substring(0, query) : u;
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    for (Endpoint e : new Endpoint[] {Endpoint.CHAT, Endpoint.COMPLETIONS}) {
      String suffix = "/" + e.path;
      if (path.endsWith(suffix) && path.length() > suffix.length()) {
        return new Builder(path.substring(0, path.length() - suffix.length()), model, e, "");
      }
    }
    throw new IllegalArgumentException("an endpoint URL ends in /chat/completions or /completions, was "
        + u.replaceAll("//[^/@]*@", "//***@"));
  }

  /** The endpoint this target calls. */
  public Endpoint endpoint() {
    return endpoint;
  }

  @Override
  String path(boolean stream) {
    return endpoint.path;
  }

  @Override
  StreamDialect dialect() {
    return StreamDialect.OPENAI;
  }

  @Override
  HttpExchange.BodyReader bodyReader() {
    return OpenAiResponses::report;
  }

  @Override
  String protocolName() {
    return endpoint.name().toLowerCase(Locale.ROOT);
  }

  @Override
  boolean carriesMedia(InferenceRequest request) {
    return endpoint == Endpoint.CHAT;
  }

  /**
   * OpenAI's content parts: {@code {"type":"text","text"}}, {@code {"type":"image_url","image_url":{"url"}}}
   * (a URL, or inline data as a {@code data:} URL) and {@code {"type":"input_audio","input_audio":{"data","format"}}}.
   */
  static void encodeParts(Message m, ArrayNode content) {
    for (ContentPart part : m.parts()) {
      ObjectNode p = content.addObject();
      if (part instanceof ContentPart.Text t) {
        p.put("type", "text").put("text", t.text());
      } else if (part instanceof ContentPart.ImageUrl i) {
        p.put("type", "image_url").putObject("image_url").put("url", i.url());
      } else if (part instanceof ContentPart.ImageData i) {
        p.put("type", "image_url").putObject("image_url").put("url", i.dataUrl());
      } else if (part instanceof ContentPart.Audio a) {
        p.put("type", "input_audio").putObject("input_audio").put("data", a.base64()).put("format", a.format());
      }
    }
  }

  @Override
  ObjectNode encode(InferenceRequest request) {
    GenerationParams p = request.params();
    ObjectNode root = MAPPER.createObjectNode();
    root.put("model", model());
    if (endpoint == Endpoint.CHAT) {
      ArrayNode messages = root.putArray("messages");
      for (Message m : request.prompt().messages()) {
        ObjectNode message = messages.addObject().put("role", m.role());
        if (m.hasMedia() || contentParts) {
          encodeParts(m, message.putArray("content"));
        } else {
          message.put("content", m.content());
        }
      }
    } else {
      root.put("prompt", request.prompt().text());
    }
    if (p.stream()) {
      root.put("stream", true);
      if (includeUsage || continuousUsage) {
        ObjectNode options = root.putObject("stream_options");
        options.put("include_usage", true);
        if (continuousUsage) {
          options.put("continuous_usage_stats", true);
        }
      }
    }
    p.maxTokens().ifPresent(n -> root.put(endpoint == Endpoint.CHAT && maxCompletionTokens
        ? "max_completion_tokens" : "max_tokens", n));
    p.temperature().ifPresent(t -> root.put("temperature", t));
    if (p.ignoreEos()) {
      root.put("ignore_eos", true);
    }
    return root;
  }

  /** Configures an {@link OpenAiTarget}; the options every HTTP target has are in {@link HttpTarget.Builder}. */
  public static final class Builder extends HttpTarget.Builder<OpenAiTarget, Builder> {
    private final Endpoint endpoint;
    private boolean includeUsage = true;
    private boolean continuousUsage;
    private boolean maxCompletionTokens;
    private boolean contentParts;

    private Builder(String baseUrl, String model, Endpoint endpoint) {
      this(baseUrl, model, endpoint, "/v1");
    }

    private Builder(String baseUrl, String model, Endpoint endpoint, String defaultPath) {
      super(baseUrl, model, defaultPath, true);
      this.endpoint = endpoint;
    }

    @Override
    Builder self() {
      return this;
    }

    /** Ask for {@code stream_options.include_usage} (default true; turn off for servers that reject it). */
    public Builder includeUsage(boolean include) {
      this.includeUsage = include;
      return this;
    }

    /**
     * Ask for vLLM's {@code continuous_usage_stats}, so every chunk says how many tokens it carried
     * (exact per-token ITL). Off by default: servers other than vLLM may reject the field.
     */
    public Builder continuousUsageStats(boolean continuous) {
      this.continuousUsage = continuous;
      return this;
    }

    /** Send {@code max_completion_tokens} instead of {@code max_tokens} on chat (OpenAI's newer models require it). */
    public Builder useMaxCompletionTokens(boolean use) {
      this.maxCompletionTokens = use;
      return this;
    }

    /**
     * Send every chat message's content as a list of content parts ({@code [{"type":"text","text":...}]}), as vLLM's
     * benchmark client does, instead of a plain string (default false: the string form every server reads).
     */
    public Builder textAsContentParts(boolean parts) {
      this.contentParts = parts;
      return this;
    }

    /** Returns the target. */
    @Override
    public OpenAiTarget build() {
      return new OpenAiTarget(this);
    }
  }
}
