package io.infermark.core.target;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.Clock;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.stream.OpenAiResponses;
import io.infermark.core.stream.StreamDialect;
import io.infermark.core.stream.StreamLimits;
import io.infermark.core.transport.OkHttpTransport;
import io.infermark.core.transport.OutboundRequest;
import io.infermark.core.transport.Timeouts;
import io.infermark.core.transport.Transport;
import io.infermark.core.transport.netty.NettyTransport;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import okhttp3.OkHttpClient;

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
 * <p>The protocol (encoding requests, decoding the SSE stream or a whole JSON body) is this class;
 * moving the bytes is its {@link Transport}'s job ({@link Builder#transport}). The default is the
 * event-loop {@link NettyTransport}: the target is then {@linkplain #isAsync() asynchronous}, the
 * engine starts requests from its scheduling thread, and every stream is read on one I/O thread
 * that stamps each chunk at the read that completed it. With {@link OkHttpTransport}
 * ({@link Builder#httpClient}, for a user's own {@code OkHttpClient} with its proxies, interceptors
 * or custom TLS) each request runs on a thread of its own.
 *
 * <p>No hidden caps: the transport's pool is sized from the load ({@link #prepare}); the read
 * timeout bounds the silence between two reads (from the moment the request is sent), not the
 * response, and the call timeout bounds the whole request. The API key is sent as a bearer token;
 * it, the value of every header a request adds ({@code GenerationParams.Builder.header}) and URL
 * userinfo never appear in {@code toString()}, records or errors. TLS is verified unless
 * {@link Builder#insecureTls(boolean)} says otherwise (and then every record says so); redirects
 * are recorded as their status unless {@link Builder#followRedirects(boolean)} is on.
 */
public final class OpenAiTarget implements Target {

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

  /** Most redirects followed in a row when {@link Builder#followRedirects(boolean)} is on. */
  public static final int MAX_REDIRECTS = 5;

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String JSON = "application/json";

  private final URI url;
  private final Endpoint endpoint;
  private final String model;
  private final String apiKey;
  private final boolean includeUsage;
  private final boolean continuousUsage;
  private final boolean maxCompletionTokens;
  private final boolean sendRequestId;
  private final Timeouts timeouts;
  private final int maxBodyBytes;
  private final StreamLimits limits;
  private final Clock clock;
  private final Transport transport;
  private final Redactor redactor;
  private final List<OutboundRequest.Header> fixedHeaders;
  private final int maxRedirects;

  private OpenAiTarget(Builder b) {
    this.url = b.baseUrl.resolve(b.baseUrl.getRawPath() + "/" + b.endpoint.path);
    this.endpoint = b.endpoint;
    this.model = b.model;
    this.apiKey = b.apiKey;
    this.includeUsage = b.includeUsage;
    this.continuousUsage = b.continuousUsage;
    this.maxCompletionTokens = b.maxCompletionTokens;
    this.sendRequestId = b.sendRequestId;
    this.timeouts = new Timeouts(b.connectTimeout, b.readTimeout, b.callTimeout);
    this.maxBodyBytes = b.maxBodyBytes;
    this.limits = b.limits;
    this.clock = b.clock;
    this.maxRedirects = b.followRedirects ? MAX_REDIRECTS : 0;
    if (b.insecureTls && b.transportGiven) {
      throw new IllegalStateException("insecureTls applies to the transports this builder makes; a transport given "
          + "with transport(...) must be built insecure itself (NettyTransport.builder().insecureTls(true) or "
          + "OkHttpTransport.of(client, keepAlive, true))");
    }
    this.transport = b.transport != null ? b.transport.apply(b.keepAlive)
        : NettyTransport.builder().keepAlive(b.keepAlive).insecureTls(b.insecureTls).build();
    List<String> secrets = new ArrayList<>();
    secrets.add(apiKey);
    if (url.getRawUserInfo() != null) {
      secrets.add(url.getRawUserInfo());
      secrets.add(url.getUserInfo());
      int colon = url.getUserInfo().indexOf(':');
      if (colon >= 0) {
        secrets.add(url.getUserInfo().substring(colon + 1));
      }
    }
    this.redactor = Redactor.of(secrets);
    List<OutboundRequest.Header> fixed = new ArrayList<>();
    // Compressed streams arrive in bursts at the compressor's pace; the client reads what the server wrote.
    fixed.add(new OutboundRequest.Header("Accept-Encoding", "identity"));
    if (!apiKey.isEmpty()) {
      fixed.add(new OutboundRequest.Header("Authorization", "Bearer " + apiKey));
    }
    this.fixedHeaders = List.copyOf(fixed);
  }

  /** A chat-completions target. {@code baseUrl} ends in {@code /v1}; a URL with no path gets {@code /v1} added. */
  public static Builder chat(String baseUrl, String model) {
    return new Builder(baseUrl, model, Endpoint.CHAT);
  }

  /** A legacy completions target. {@code baseUrl} ends in {@code /v1}; a URL with no path gets {@code /v1} added. */
  public static Builder completions(String baseUrl, String model) {
    return new Builder(baseUrl, model, Endpoint.COMPLETIONS);
  }

  /** The full URL requests are posted to, without userinfo. */
  public String url() {
    return OutboundRequest.redactedUrl(url);
  }

  /** The model name sent in every request. */
  public String model() {
    return model;
  }

  /** The endpoint this target calls. */
  public Endpoint endpoint() {
    return endpoint;
  }

  /** The transport that moves this target's bytes. */
  public Transport transport() {
    return transport;
  }

  @Override
  public List<io.infermark.core.health.Probe> healthProbes() {
    return transport.healthProbes();
  }

  /** True when TLS certificates and host names are not verified (see {@link Builder#insecureTls(boolean)}). */
  @Override
  public boolean insecureTls() {
    return transport.insecureTls();
  }

  @Override
  public boolean isAsync() {
    return !transport.blocking();
  }

  @Override
  public void prepare(int maxInFlight) {
    if (maxInFlight <= 0) {
      throw new IllegalArgumentException("maxInFlight must be > 0, was " + maxInFlight);
    }
    transport.prepare(maxInFlight);
  }

  @Override
  public void start(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    send(request, observer, cancellation);
  }

  @Override
  public void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    HttpExchange exchange = send(request, observer, cancellation);
    if (!transport.blocking()) {
      try {
        exchange.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        cancellation.cancel();
        exchange.onFailure(Failure.of(ErrorCategory.CANCELLED, "the calling thread was interrupted"),
            clock.nanoTime());
      }
    }
  }

  /** Starts the exchange; on a blocking transport also sends every redirect hop it is told to follow. */
  private HttpExchange send(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    OutboundRequest out = outbound(request);
    // every header the request adds is the user's: its value is redacted like a key's (Set.of(): all)
    Redactor r = redactor.withHeaders(request.params().headers(), java.util.Set.of());
    HttpExchange exchange = new HttpExchange(observer, clock, StreamDialect.OPENAI, OpenAiResponses::report,
        request.params().stream(), r, maxBodyBytes, limits);
    if (maxRedirects > 0) {
      exchange.followRedirects(maxRedirects, transport, out, cancellation);
    }
    transport.start(out, exchange, cancellation);
    if (maxRedirects > 0 && transport.blocking()) {
      for (OutboundRequest hop = exchange.takeRedirect(); hop != null; hop = exchange.takeRedirect()) {
        transport.start(hop, exchange, cancellation);
      }
    }
    return exchange;
  }

  /** The HTTP request for an inference request; package-private for tests. */
  OutboundRequest outbound(InferenceRequest request) {
    List<OutboundRequest.Header> headers = new ArrayList<>(fixedHeaders.size() + 3);
    if (request.params().stream()) {
      headers.add(new OutboundRequest.Header("Accept", "text/event-stream"));
    }
    headers.addAll(fixedHeaders);
    if (sendRequestId && !request.id().isEmpty()) {
      headers.add(new OutboundRequest.Header("X-Request-Id", request.id()));
    }
    for (Map.Entry<String, String> h : request.params().headers().entrySet()) {
      headers.add(new OutboundRequest.Header(h.getKey(), h.getValue()));
    }
    return new OutboundRequest("POST", url, headers, body(request), JSON, timeouts);
  }

  /** The JSON body for a request; package-private for tests. */
  byte[] body(InferenceRequest request) {
    GenerationParams p = request.params();
    ObjectNode root = MAPPER.createObjectNode();
    root.put("model", model);
    if (endpoint == Endpoint.CHAT) {
      ArrayNode messages = root.putArray("messages");
      for (Message m : request.prompt().messages()) {
        messages.addObject().put("role", m.role()).put("content", m.content());
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
    for (Map.Entry<String, Object> e : p.extraBody().entrySet()) {
      root.set(e.getKey(), MAPPER.valueToTree(e.getValue()));
    }
    try {
      return MAPPER.writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("request body cannot be serialised: " + e.getOriginalMessage(), e);
    }
  }

  @Override
  public void close() {
    transport.close();
  }

  @Override
  public String toString() {
    return "OpenAiTarget[" + endpoint.name().toLowerCase(Locale.ROOT) + " " + url() + ", model " + model
        + ", " + transport.name() + (apiKey.isEmpty() ? "" : ", api key ***")
        + (maxRedirects > 0 ? ", follows redirects" : "") + (transport.insecureTls() ? ", INSECURE TLS" : "") + "]";
  }

  /** Configures an {@link OpenAiTarget}. */
  public static final class Builder {
    private final URI baseUrl;
    private final String model;
    private final Endpoint endpoint;
    private String apiKey = "";
    private boolean includeUsage = true;
    private boolean continuousUsage;
    private boolean maxCompletionTokens;
    private boolean sendRequestId = true;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration readTimeout = Duration.ofMinutes(5);
    private Duration callTimeout = Duration.ofMinutes(10);
    private Duration keepAlive = Duration.ofSeconds(4);
    private int maxBodyBytes = 16 << 20;
    private StreamLimits limits = StreamLimits.DEFAULT;
    private Clock clock = Clock.system();
    private Function<Duration, Transport> transport;
    private boolean transportGiven;
    private boolean insecureTls;
    private boolean followRedirects;

    private Builder(String baseUrl, String model, Endpoint endpoint) {
      Objects.requireNonNull(baseUrl, "baseUrl");
      Objects.requireNonNull(model, "model");
      this.baseUrl = parseBaseUrl(baseUrl);
      if (model.isBlank()) {
        throw new IllegalArgumentException("model must not be blank");
      }
      this.model = model;
      this.endpoint = endpoint;
    }

    private static URI parseBaseUrl(String baseUrl) {
      URI parsed;
      try {
        parsed = new URI(baseUrl.strip());
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("not an http(s) URL: " + redactedText(baseUrl));
      }
      String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || parsed.getHost() == null) {
        throw new IllegalArgumentException("not an http(s) URL: " + redactedText(baseUrl));
      }
      String path = parsed.getRawPath() == null ? "" : parsed.getRawPath();
      if (path.isEmpty() || path.equals("/")) {
        path = "/v1";
      }
      while (path.endsWith("/")) {
        path = path.substring(0, path.length() - 1);
      }
      try {
        return new URI(scheme + "://" + parsed.getRawAuthority() + path);
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("not an http(s) URL: " + redactedText(baseUrl));
      }
    }

    /** A URL string with anything between {@code //} and {@code @} hidden, for error messages. */
    private static String redactedText(String url) {
      return url.replaceAll("//[^/@]*@", "//***@");
    }

    /** The API key, sent as {@code Authorization: Bearer}; never logged or recorded. */
    public Builder apiKey(String key) {
      Objects.requireNonNull(key, "apiKey");
      if (key.chars().anyMatch(c -> c == '\r' || c == '\n' || c == 0)) {
        throw new IllegalArgumentException("apiKey contains CR, LF or NUL");
      }
      this.apiKey = key;
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

    /** Send each request's id as {@code X-Request-Id} (default true). */
    public Builder sendRequestId(boolean send) {
      this.sendRequestId = send;
      return this;
    }

    /** Time allowed to establish a connection (default 10 s). */
    public Builder connectTimeout(Duration d) {
      this.connectTimeout = positive(d, "connectTimeout");
      return this;
    }

    /** Longest silence allowed between two reads, headers included (default 5 min). */
    public Builder readTimeout(Duration d) {
      this.readTimeout = positive(d, "readTimeout");
      return this;
    }

    /** Deadline of a whole request, from send to the end of the stream (default 10 min). */
    public Builder callTimeout(Duration d) {
      this.callTimeout = positive(d, "callTimeout");
      return this;
    }

    /**
     * How long an idle pooled connection is kept by the transport this builder makes (default 4 s).
     * Keeping idle connections for less than the server's keep-alive (uvicorn, which serves vLLM and
     * SGLang, closes them after 5 s) avoids recording a request on a connection the server already
     * closed as a server failure. Not used with {@link #transport(Transport)}: configure that
     * transport's own keep-alive.
     */
    public Builder keepAlive(Duration d) {
      this.keepAlive = positive(d, "keepAlive");
      return this;
    }

    /**
     * The largest non-streamed response body read (default 16 MiB); a larger one ends the request
     * as {@link io.infermark.core.capture.ErrorCategory#MALFORMED_STREAM} instead of filling memory.
     */
    public Builder maxBodyBytes(int bytes) {
      if (bytes <= 0) {
        throw new IllegalArgumentException("maxBodyBytes must be > 0, was " + bytes);
      }
      this.maxBodyBytes = bytes;
      return this;
    }

    /**
     * Bounds on what the stream decoder buffers per request (default {@link StreamLimits#DEFAULT}: 1 MiB
     * lines, 4 MiB events); a server exceeding them fails the request as
     * {@link io.infermark.core.capture.ErrorCategory#MALFORMED_STREAM}.
     */
    public Builder streamLimits(StreamLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** The clock that stamps milestones and chunks; must be the run's clock (default system). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Runs requests on an OkHttp transport derived from {@code client} (TLS, proxies, interceptors):
     * see {@link OkHttpTransport#of} for what is replaced. Each in-flight request then has a thread.
     */
    public Builder httpClient(OkHttpClient client) {
      Objects.requireNonNull(client, "client");
      this.transport = keep -> OkHttpTransport.of(client, keep, insecureTls);
      this.transportGiven = false;
      return this;
    }

    /**
     * The transport that moves this target's bytes; the target owns it and closes it on
     * {@link OpenAiTarget#close()}.
     */
    public Builder transport(Transport transport) {
      Objects.requireNonNull(transport, "transport");
      this.transport = keep -> transport;
      this.transportGiven = true;
      return this;
    }

    /**
     * Switches TLS verification off (default false) for the transport this builder makes: any
     * certificate and host name are accepted, for a test server with a self-signed certificate. The
     * server is then not authenticated, so nothing stays quiet about it: the transport logs one WARN,
     * every record is marked ({@link io.infermark.core.capture.RequestRecord#insecureTls()}) and
     * reports show a banner. Not combinable with {@link #transport(Transport)} (build that transport
     * insecure itself).
     */
    public Builder insecureTls(boolean insecure) {
      this.insecureTls = insecure;
      return this;
    }

    /**
     * Follows redirects (default false: a 3xx is recorded as the
     * {@link io.infermark.core.capture.ErrorCategory#HTTP_STATUS} failure it is). When on, 301, 302,
     * 307 and 308 are followed, up to {@value #MAX_REDIRECTS} in a row, by sending the same method
     * and body to the new location (never turned into a GET); 303, a downgrade from https to http and
     * a missing location are not followed. Credentials (Authorization, API key and cookie headers) go
     * only to the origin they were set for. The record says how many redirects were followed and
     * where the response came from ({@link io.infermark.core.capture.RequestRecord#redirects()},
     * {@link io.infermark.core.capture.RequestRecord#finalUrl()}); latency runs from the first send,
     * so the redirects' cost is in it.
     */
    public Builder followRedirects(boolean follow) {
      this.followRedirects = follow;
      return this;
    }

    /** Returns the target. */
    public OpenAiTarget build() {
      return new OpenAiTarget(this);
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0, was " + d);
      }
      return d;
    }
  }
}
