package io.infermark.core.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.health.Probe;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.stream.StreamDialect;
import io.infermark.core.stream.StreamLimits;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OkHttpTransport;
import io.infermark.core.transport.OutboundRequest;
import io.infermark.core.transport.Timeouts;
import io.infermark.core.transport.Transport;
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.core.workload.WorkloadTags;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import okhttp3.OkHttpClient;

/**
 * What every HTTP {@link Target} shares, whatever its protocol: the base URL, the API key and
 * its redaction, the {@link Transport} (event-loop {@link NettyTransport} by default, or
 * {@link OkHttpTransport}), timeouts, stream and body bounds, and the request lifecycle
 * ({@link #prepare}, {@link #start}, {@link #execute}, {@link #close}). A protocol subclass only
 * encodes a request (URL, headers, JSON body) and names the {@link StreamDialect} that decodes its
 * stream and the reader of its whole (non-streamed) body; so every protocol runs on every transport.
 *
 * <p>The subclasses are {@link OpenAiTarget}, {@link OpenAiResponsesTarget},
 * {@link AnthropicTarget}, {@link OllamaTarget}, {@link TgiTarget}, {@link LlamaCppTarget} and
 * {@link TritonTarget}. Instances are immutable; the API key, the value of every header a request
 * adds ({@code GenerationParams.Builder.header}) and URL userinfo never appear in {@code toString()},
 * records or errors. TLS is verified unless {@link Builder#insecureTls(boolean)} says otherwise (and
 * then every record says so); redirects are recorded as their status unless
 * {@link Builder#followRedirects(boolean)} is on.
 */
public abstract class HttpTarget implements Target {

  /** Most redirects followed in a row when {@link Builder#followRedirects(boolean)} is on. */
  public static final int MAX_REDIRECTS = 5;

  static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String JSON = "application/json";

  private final URI baseUrl;
  private final String model;
  private final String apiKey;
  private final boolean sendRequestId;
  private final Timeouts timeouts;
  private final int maxBodyBytes;
  private final StreamLimits limits;
  private final Clock clock;
  private final Transport transport;
  private final Redactor redactor;
  private final int maxRedirects;

  HttpTarget(Builder<?, ?> b) {
    this.baseUrl = b.baseUrl;
    this.model = b.model;
    this.apiKey = b.apiKey;
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
    if (baseUrl.getRawUserInfo() != null) {
      secrets.add(baseUrl.getRawUserInfo());
      secrets.add(baseUrl.getUserInfo());
      int colon = baseUrl.getUserInfo().indexOf(':');
      if (colon >= 0) {
        secrets.add(baseUrl.getUserInfo().substring(colon + 1));
      }
    }
    this.redactor = Redactor.of(secrets);
  }

  // ---- what a protocol provides ----

  /** The path, relative to the base URL, that a request is posted to. */
  abstract String path(boolean stream);

  /** The JSON body of a request. */
  abstract ObjectNode encode(InferenceRequest request);

  /** The dialect of the streamed response. */
  abstract StreamDialect dialect();

  /** Reads a whole non-streamed (or JSON instead of streamed) 2xx body. */
  abstract HttpExchange.BodyReader bodyReader();

  /** Whether the protocol carries image and audio parts; text-only protocols fail such requests. */
  boolean carriesMedia(InferenceRequest request) {
    return false;
  }

  /** Reads the server timings a protocol reports in a 2xx response's header fields; none by default. */
  HttpExchange.HeadReader headReader() {
    return HttpExchange.HeadReader.NONE;
  }

  /** Adds the protocol's own headers (authentication included) after {@code Accept}. */
  void protocolHeaders(List<OutboundRequest.Header> headers) {
    if (!apiKey.isEmpty()) {
      headers.add(new OutboundRequest.Header("Authorization", "Bearer " + apiKey));
    }
  }

  /** The protocol's name in {@link #toString()}. */
  abstract String protocolName();

  // ---- shared ----

  /** The model this target asks for; empty for servers that serve one model and take no name. */
  public final String model() {
    return model;
  }

  /** The URL streamed requests are posted to, without userinfo. */
  public String url() {
    return OutboundRequest.redactedUrl(resolve(path(true)));
  }

  /** {@inheritDoc} Here the {@linkplain #url() URL streamed requests are posted to}. */
  @Override
  public java.util.Optional<String> serverUrl() {
    return java.util.Optional.of(url());
  }

  /** {@inheritDoc} True for every HTTP protocol. */
  @Override
  public boolean supportsPreflight() {
    return true;
  }

  /** The transport that moves this target's bytes. */
  public final Transport transport() {
    return transport;
  }

  final String apiKey() {
    return apiKey;
  }

  @Override
  public final List<Probe> healthProbes() {
    return transport.healthProbes();
  }

  /** True when TLS certificates and host names are not verified (see {@link Builder#insecureTls(boolean)}). */
  @Override
  public final boolean insecureTls() {
    return transport.insecureTls();
  }

  @Override
  public final boolean isAsync() {
    return !transport.blocking();
  }

  @Override
  public final void prepare(int maxInFlight) {
    if (maxInFlight <= 0) {
      throw new IllegalArgumentException("maxInFlight must be > 0, was " + maxInFlight);
    }
    transport.prepare(maxInFlight);
  }

  @Override
  public final void start(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    send(request, observer, cancellation);
  }

  @Override
  public final void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
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

  /** The observer an exchange reports to: {@code observer} itself unless the protocol adds to what it says. */
  StreamObserver observing(StreamObserver observer) {
    return observer;
  }

  /** Starts the exchange; on a blocking transport also sends every redirect hop it is told to follow. */
  private HttpExchange send(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    OutboundRequest out = outbound(request);
    if (request.params().ignoreEos() && request.params().maxTokens().isPresent()) {
      // What was asked, on the record: a server that stops short of it with ignore_eos (one that reads max_tokens
      // as prompt + output) is then counted and named in the summaries.
      observer.onAnnotation(WorkloadTags.OUTPUT_TOKENS_REQUESTED,
          Integer.toString(request.params().maxTokens().getAsInt()));
    }
    // every header the request adds is the user's: its value is redacted like a key's (Set.of(): all)
    Redactor r = redactor.withHeaders(request.params().headers(), Set.of());
    HttpExchange exchange = new HttpExchange(observing(observer), clock, dialect(), bodyReader(), headReader(),
        request.params().stream(), r, maxBodyBytes, limits).requestLine(out.method(), out.url());
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
    if (request.prompt().hasMedia() && !carriesMedia(request)) {
      throw new IllegalArgumentException(getClass().getSimpleName() + " (" + protocolName() + ") sends text only; "
          + "the prompt has image or audio parts (OpenAiTarget.chat and AnthropicTarget carry them)");
    }
    boolean stream = request.params().stream();
    List<OutboundRequest.Header> headers = new ArrayList<>(8);
    if (stream) {
      // JSON second: a server that negotiates its error pages (Spring Boot's, Jlama's) otherwise answers an
      // event-stream request's 404 with no body at all, and the reason is lost.
      headers.add(new OutboundRequest.Header("Accept", dialect() == StreamDialect.OLLAMA_NDJSON
          ? "application/x-ndjson" : "text/event-stream, application/json;q=0.9"));
    }
    // Compressed streams arrive in bursts at the compressor's pace; the client reads what the server wrote.
    headers.add(new OutboundRequest.Header("Accept-Encoding", "identity"));
    protocolHeaders(headers);
    if (sendRequestId && !request.id().isEmpty()) {
      headers.add(new OutboundRequest.Header("X-Request-Id", request.id()));
    }
    for (Map.Entry<String, String> h : request.params().headers().entrySet()) {
      headers.add(new OutboundRequest.Header(h.getKey(), h.getValue()));
    }
    return new OutboundRequest("POST", resolve(path(stream)), headers, body(request), JSON, timeouts);
  }

  /** The JSON body for a request, with the request's extra body fields last; package-private for tests. */
  byte[] body(InferenceRequest request) {
    ObjectNode root = encode(request);
    for (Map.Entry<String, Object> e : request.params().extraBody().entrySet()) {
      root.set(e.getKey(), MAPPER.valueToTree(e.getValue()));
    }
    try {
      return MAPPER.writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("request body cannot be serialised: " + e.getOriginalMessage(), e);
    }
  }

  private URI resolve(String path) {
    return baseUrl.resolve(baseUrl.getRawPath() + "/" + path);
  }

  @Override
  public final void close() {
    transport.close();
  }

  /**
   * One line: protocol, URL, model, transport, and on HTTP/2 the SETTINGS each server announced (known once a
   * connection was made; the run's result keeps this description, so its SETTINGS are on the run).
   */
  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + protocolName() + " " + url()
        + (model.isEmpty() ? "" : ", model " + model) + ", " + transport.name()
        + (apiKey.isEmpty() ? "" : ", api key ***") + (maxRedirects > 0 ? ", follows redirects" : "")
        + (transport.insecureTls() ? ", INSECURE TLS" : "") + http2Settings() + details() + "]";
  }

  /** What a protocol adds to {@link #toString()}'s line, each part after ", "; empty when nothing. */
  String details() {
    return "";
  }

  /** What the HTTP/2 servers announced, for the run's record of its target; empty on HTTP/1.1. */
  private String http2Settings() {
    if (!(transport instanceof NettyTransport n) || n.http2Settings().isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    n.http2Settings().forEach(x -> b.append(", server ").append(x));
    return b.toString();
  }

  /**
   * The options every HTTP target has. Setters return the concrete builder, so they chain with
   * the protocol's own options.
   *
   * @param <T> the target built
   * @param <B> the concrete builder
   */
  public abstract static class Builder<T extends HttpTarget, B extends Builder<T, B>> {
    final URI baseUrl;
    final String model;
    private String apiKey = "";
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

    /**
     * @param defaultPath the path a base URL without one gets ({@code "/v1"}, or {@code ""})
     * @param modelRequired whether the protocol names a model in every request
     */
    Builder(String baseUrl, String model, String defaultPath, boolean modelRequired) {
      Objects.requireNonNull(baseUrl, "baseUrl");
      Objects.requireNonNull(model, "model");
      this.baseUrl = parseBaseUrl(baseUrl, defaultPath);
      if (modelRequired && model.isBlank()) {
        throw new IllegalArgumentException("model must not be blank");
      }
      this.model = model.strip();
    }

    abstract B self();

    private static URI parseBaseUrl(String baseUrl, String defaultPath) {
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
        path = defaultPath;
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

    /**
     * The API key, sent as the protocol expects ({@code Authorization: Bearer}, or Anthropic's
     * {@code x-api-key}); never logged or recorded. Empty (the default) sends none.
     */
    public B apiKey(String key) {
      Objects.requireNonNull(key, "apiKey");
      if (key.chars().anyMatch(c -> c == '\r' || c == '\n' || c == 0)) {
        throw new IllegalArgumentException("apiKey contains CR, LF or NUL");
      }
      this.apiKey = key;
      return self();
    }

    /** Send each request's id as {@code X-Request-Id} (default true). */
    public B sendRequestId(boolean send) {
      this.sendRequestId = send;
      return self();
    }

    /** Time allowed to establish a connection (default 10 s). */
    public B connectTimeout(Duration d) {
      this.connectTimeout = positive(d, "connectTimeout");
      return self();
    }

    /** Longest silence allowed between two reads, headers included (default 5 min). */
    public B readTimeout(Duration d) {
      this.readTimeout = positive(d, "readTimeout");
      return self();
    }

    /** Deadline of a whole request, from send to the end of the stream (default 10 min). */
    public B callTimeout(Duration d) {
      this.callTimeout = positive(d, "callTimeout");
      return self();
    }

    /**
     * How long an idle pooled connection is kept by the transport this builder makes (default 4 s).
     * Keeping idle connections for less than the server's keep-alive (uvicorn, which serves vLLM and
     * SGLang, closes them after 5 s) avoids recording a request on a connection the server already
     * closed as a server failure. Not used with {@link #transport(Transport)}: configure that
     * transport's own keep-alive.
     */
    public B keepAlive(Duration d) {
      this.keepAlive = positive(d, "keepAlive");
      return self();
    }

    /**
     * The largest non-streamed response body read (default 16 MiB); a larger one ends the request
     * as {@link io.infermark.core.capture.ErrorCategory#MALFORMED_STREAM} instead of filling memory.
     */
    public B maxBodyBytes(int bytes) {
      if (bytes <= 0) {
        throw new IllegalArgumentException("maxBodyBytes must be > 0, was " + bytes);
      }
      this.maxBodyBytes = bytes;
      return self();
    }

    /**
     * Bounds on what the stream decoder buffers per request (default {@link StreamLimits#DEFAULT}: 1 MiB
     * lines, 4 MiB events); a server exceeding them fails the request as
     * {@link io.infermark.core.capture.ErrorCategory#MALFORMED_STREAM}.
     */
    public B streamLimits(StreamLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return self();
    }

    /** The clock that stamps milestones and chunks; must be the run's clock (default system). */
    public B clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return self();
    }

    /**
     * Runs requests on an OkHttp transport derived from {@code client} (TLS, proxies, interceptors):
     * see {@link OkHttpTransport#of} for what is replaced. Each in-flight request then has a thread.
     */
    public B httpClient(OkHttpClient client) {
      Objects.requireNonNull(client, "client");
      this.transport = keep -> OkHttpTransport.of(client, keep, insecureTls);
      this.transportGiven = false;
      return self();
    }

    /** The transport that moves the target's bytes; the target owns it and closes it on close. */
    public B transport(Transport transport) {
      Objects.requireNonNull(transport, "transport");
      this.transport = keep -> transport;
      this.transportGiven = true;
      return self();
    }

    /**
     * Switches TLS verification off (default false) for the transport this builder makes: any
     * certificate and host name are accepted, for a test server with a self-signed certificate. The
     * server is then not authenticated, so nothing stays quiet about it: the transport logs one WARN,
     * every record is marked ({@link io.infermark.core.capture.RequestRecord#insecureTls()}) and
     * reports show a banner. Not combinable with {@link #transport(Transport)} (build that transport
     * insecure itself).
     */
    public B insecureTls(boolean insecure) {
      this.insecureTls = insecure;
      return self();
    }

    /**
     * Follows redirects (default false: a 3xx is recorded as the
     * {@link io.infermark.core.capture.ErrorCategory#HTTP_STATUS} failure it is). When on, 301, 302,
     * 307 and 308 are followed, up to {@value HttpTarget#MAX_REDIRECTS} in a row, by sending the same
     * method and body to the new location (never turned into a GET); 303, a downgrade from https to
     * http and a missing location are not followed. Credentials (Authorization, API key and cookie
     * headers) go only to the origin they were set for. The record says how many redirects were
     * followed and where the response came from
     * ({@link io.infermark.core.capture.RequestRecord#redirects()},
     * {@link io.infermark.core.capture.RequestRecord#finalUrl()}); latency runs from the first send,
     * so the redirects' cost is in it.
     */
    public B followRedirects(boolean follow) {
      this.followRedirects = follow;
      return self();
    }

    /** Returns the target. */
    public abstract T build();

    static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0, was " + d);
      }
      return d;
    }
  }
}
