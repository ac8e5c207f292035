package io.infermark.core.target;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.Clock;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.stream.ErrorBodies;
import io.infermark.core.stream.OpenAiResponses;
import io.infermark.core.stream.StreamDecoder;
import io.infermark.core.stream.StreamDialect;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;

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
 * <p>No hidden caps: requests run synchronously on the engine's threads, so OkHttp's dispatcher
 * limits ({@code maxRequestsPerHost} = 5 by default) never apply; the connection pool keeps as many
 * idle connections as the run may have in flight ({@link #prepare}); the read timeout bounds the
 * silence between two reads (from the moment the request is sent), not the response, and the call
 * timeout bounds the whole request. The read timeout is enforced by one shared watchdog thread
 * rather than by OkHttp on every read (see {@link ReadWatchdog}), which keeps reads to one system
 * call each; it fires within 1/16 of its value (at most 1 s) after it expires.
 * The API key is sent as a bearer token and never appears in {@code toString()}, records or errors.
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

  private static final MediaType JSON = MediaType.get("application/json");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int READ_BUFFER_BYTES = 16 * 1024;
  private static final int ERROR_BODY_BYTES = 4096;

  private final HttpUrl url;
  private final Endpoint endpoint;
  private final String model;
  private final String apiKey;
  private final boolean includeUsage;
  private final boolean continuousUsage;
  private final boolean maxCompletionTokens;
  private final boolean sendRequestId;
  private final Duration callTimeout;
  private final long readTimeoutNanos;
  private final Duration keepAlive;
  private final Clock clock;
  private final boolean systemClock; // clock readings are System.nanoTime(), usable by the watchdog
  private final OkHttpClient baseClient;
  private volatile OkHttpClient client;

  private OpenAiTarget(Builder b) {
    this.url = b.baseUrl.newBuilder().addPathSegments(b.endpoint.path).build();
    this.endpoint = b.endpoint;
    this.model = b.model;
    this.apiKey = b.apiKey;
    this.includeUsage = b.includeUsage;
    this.continuousUsage = b.continuousUsage;
    this.maxCompletionTokens = b.maxCompletionTokens;
    this.sendRequestId = b.sendRequestId;
    this.callTimeout = b.callTimeout;
    this.readTimeoutNanos = b.readTimeout.toNanos();
    this.keepAlive = b.keepAlive;
    this.clock = b.clock;
    this.systemClock = b.clock == Clock.system();
    this.baseClient = b.client.newBuilder()
        .connectTimeout(b.connectTimeout)
        .readTimeout(Duration.ZERO) // enforced by ReadWatchdog: a timed socket costs 3 system calls a read
        .writeTimeout(b.connectTimeout)
        .callTimeout(b.callTimeout)
        .retryOnConnectionFailure(false) // a retried request would hide a failure and skew its timing
        .eventListenerFactory(PhaseListener.FACTORY)
        .build();
    this.client = sized(64);
  }

  /** A chat-completions target. {@code baseUrl} ends in {@code /v1}; a URL with no path gets {@code /v1} added. */
  public static Builder chat(String baseUrl, String model) {
    return new Builder(baseUrl, model, Endpoint.CHAT);
  }

  /** A legacy completions target. {@code baseUrl} ends in {@code /v1}; a URL with no path gets {@code /v1} added. */
  public static Builder completions(String baseUrl, String model) {
    return new Builder(baseUrl, model, Endpoint.COMPLETIONS);
  }

  /** The full URL requests are posted to. */
  public String url() {
    return url.toString();
  }

  /** The endpoint this target calls. */
  public Endpoint endpoint() {
    return endpoint;
  }

  @Override
  public void prepare(int maxInFlight) {
    if (maxInFlight <= 0) {
      throw new IllegalArgumentException("maxInFlight must be > 0, was " + maxInFlight);
    }
    OkHttpClient old = client;
    client = sized(maxInFlight);
    old.connectionPool().evictAll();
  }

  /** The client currently in use; for tests. */
  OkHttpClient client() {
    return client;
  }

  private OkHttpClient sized(int maxInFlight) {
    Dispatcher dispatcher = new Dispatcher();
    dispatcher.setMaxRequests(Math.max(maxInFlight, 64));
    dispatcher.setMaxRequestsPerHost(Math.max(maxInFlight, 64));
    return baseClient.newBuilder()
        .dispatcher(dispatcher)
        .connectionPool(new ConnectionPool(Math.max(maxInFlight, 5), keepAlive.toNanos(), TimeUnit.NANOSECONDS))
        .build();
  }

  @Override
  public void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    PhaseListener progress = new PhaseListener(observer, clock);
    Request httpRequest = httpRequest(request, progress);
    long start = clock.nanoTime();
    Call call = client.newCall(httpRequest);
    cancellation.onCancel(call::cancel);
    ReadWatchdog.Watch watch = ReadWatchdog.watch(call, progress, readTimeoutNanos);
    try (Response response = call.execute()) {
      long headersAt = clock.nanoTime();
      watch.touch(systemClock ? headersAt : System.nanoTime());
      observer.onResponseHeaders(response.code(), headersAt);
      ResponseBody body = response.body();
      if (!response.isSuccessful()) {
        String excerpt = redact(ErrorBodies.summarize(response.peekBody(ERROR_BODY_BYTES).string()));
        observer.onFailure(Failure.httpStatus(response.code(), excerpt), clock.nanoTime());
      } else if (request.params().stream() && isEventStream(body)) {
        readStream(body, observer, watch);
      } else {
        // Also where a server answers a streaming request with plain JSON (often an error object).
        byte[] bytes = readAll(body, watch);
        OpenAiResponses.report(bytes, observer, clock.nanoTime());
      }
    } catch (IOException e) {
      if (watch.expired() && !cancellation.isCancelled()) {
        observer.onFailure(Failure.timeout(TimeoutPhase.READ, "read timeout: no data for more than "
            + TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos) + " ms"), clock.nanoTime());
        return;
      }
      boolean timedOut = !callTimeout.isZero() && clock.nanoTime() - start >= callTimeout.toNanos();
      Failure f = FailureClassifier.classify(e, cancellation.isCancelled(), timedOut, progress);
      observer.onFailure(new Failure(f.category(), f.httpStatus(), f.timeoutPhase(), redact(f.message())),
          clock.nanoTime());
    } finally {
      ReadWatchdog.unwatch(watch);
    }
  }

  /** Servers sometimes echo a rejected key in their error body; it must not reach a record. */
  private String redact(String message) {
    return apiKey.length() < 4 ? message : message.replace(apiKey, "***");
  }

  private static boolean isEventStream(ResponseBody body) {
    MediaType type = body.contentType();
    return type == null || !type.subtype().equalsIgnoreCase("json");
  }

  private void readStream(ResponseBody body, StreamObserver observer, ReadWatchdog.Watch watch) throws IOException {
    StreamDecoder decoder = StreamDialect.OPENAI.newDecoder(observer);
    byte[] buf = new byte[READ_BUFFER_BYTES];
    try (InputStream in = body.byteStream()) {
      int n;
      while ((n = in.read(buf)) != -1) {
        long now = clock.nanoTime();
        watch.touch(systemClock ? now : System.nanoTime());
        decoder.feed(buf, 0, n, now);
      }
    }
    decoder.end(clock.nanoTime());
  }

  /** Reads a whole (non-streamed) body, telling the watchdog about every read. */
  private byte[] readAll(ResponseBody body, ReadWatchdog.Watch watch) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
    byte[] buf = new byte[READ_BUFFER_BYTES];
    try (InputStream in = body.byteStream()) {
      int n;
      while ((n = in.read(buf)) != -1) {
        watch.touch(System.nanoTime());
        out.write(buf, 0, n);
      }
    }
    return out.toByteArray();
  }

  Request httpRequest(InferenceRequest request, PhaseListener progress) {
    Request.Builder b = new Request.Builder().url(url)
        .post(RequestBody.create(body(request), JSON))
        .tag(PhaseListener.class, progress);
    if (request.params().stream()) {
      b.header("Accept", "text/event-stream");
    }
    if (!apiKey.isEmpty()) {
      b.header("Authorization", "Bearer " + apiKey);
    }
    if (sendRequestId && !request.id().isEmpty()) {
      b.header("X-Request-Id", request.id());
    }
    for (Map.Entry<String, String> h : request.params().headers().entrySet()) {
      b.header(h.getKey(), h.getValue());
    }
    return b.build();
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
    OkHttpClient c = client;
    c.dispatcher().executorService().shutdown();
    c.connectionPool().evictAll();
  }

  @Override
  public String toString() {
    return "OpenAiTarget[" + endpoint.name().toLowerCase(java.util.Locale.ROOT) + " " + url + ", model " + model
        + (apiKey.isEmpty() ? "" : ", api key ***") + "]";
  }

  /** Configures an {@link OpenAiTarget}. */
  public static final class Builder {
    private final HttpUrl baseUrl;
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
    private Clock clock = Clock.system();
    private OkHttpClient client = new OkHttpClient();

    private Builder(String baseUrl, String model, Endpoint endpoint) {
      Objects.requireNonNull(baseUrl, "baseUrl");
      Objects.requireNonNull(model, "model");
      HttpUrl parsed = HttpUrl.parse(baseUrl);
      if (parsed == null) {
        throw new IllegalArgumentException("not an http(s) URL: " + baseUrl);
      }
      if (parsed.encodedPath().equals("/")) {
        parsed = parsed.newBuilder().addPathSegment("v1").build();
      }
      // Resolve endpoint paths below the base, whether or not it ends in '/'.
      String path = parsed.encodedPath();
      if (path.endsWith("/")) {
        parsed = parsed.newBuilder().encodedPath(path.substring(0, path.length() - 1)).build();
      }
      if (model.isBlank()) {
        throw new IllegalArgumentException("model must not be blank");
      }
      this.baseUrl = parsed;
      this.model = model;
      this.endpoint = endpoint;
    }

    /** The API key, sent as {@code Authorization: Bearer}; never logged or recorded. */
    public Builder apiKey(String key) {
      this.apiKey = Objects.requireNonNull(key, "apiKey");
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
     * How long an idle pooled connection is kept (default 4 s). Retries are off, so a request on a
     * connection the server already closed would fail; keeping idle connections for less than the
     * server's keep-alive (uvicorn, which serves vLLM and SGLang, closes them after 5 s) avoids
     * recording such client artefacts as server failures.
     */
    public Builder keepAlive(Duration d) {
      this.keepAlive = positive(d, "keepAlive");
      return this;
    }

    /** The clock that stamps milestones and chunks; must be the run's clock (default system). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * An OkHttp client to derive from (TLS, proxies, interceptors). Its timeouts, dispatcher and
     * pool are replaced; its event listener is replaced by infermark's phase capture.
     */
    public Builder httpClient(OkHttpClient client) {
      this.client = Objects.requireNonNull(client, "client");
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
