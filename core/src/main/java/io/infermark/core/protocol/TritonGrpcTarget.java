package io.infermark.core.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.health.Probe;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OutboundRequest;
import io.infermark.core.transport.Timeouts;
import io.infermark.core.transport.Transport;
import io.infermark.core.transport.netty.HttpVersionPolicy;
import io.infermark.core.transport.netty.NettyTransport;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A {@link Target} for Triton's (and any KServe v2 server's) gRPC streaming inference,
 * {@code inference.GRPCInferenceService/ModelStreamInfer}: what perf_analyzer and GenAI-Perf measure
 * Triton through.
 *
 * <pre>{@code
 * Target t = TritonGrpcTarget.streamInfer("http://localhost:8001", "ensemble").build();
 * }</pre>
 *
 * <p>Each request is one call: one {@code ModelInferRequest}, then the client half-closes; every
 * {@code ModelStreamInferResponse} the server streams back is one chunk, stamped with the socket read
 * that completed it (the same HTTP/2 event loop and stamping point as every other target on
 * {@link NettyTransport}); the call ends at the trailers. A {@code grpc-status} other than OK is
 * classified like the HTTP error it stands for ({@code UNAVAILABLE} as HTTP 503,
 * {@code RESOURCE_EXHAUSTED} as 429, {@code INVALID_ARGUMENT} as 400, ...) with its message kept;
 * {@code DEADLINE_EXCEEDED} is a call timeout; an {@code error_message} inside the stream is a
 * {@link ErrorCategory#STREAM_ERROR}; a stream cut off (RST_STREAM, a closed connection) is a
 * {@link ErrorCategory#RESET}. Triton reports no usage: output tokens are counted from the stream,
 * each response's from its {@code num_output_tokens} output where the server sends one (see
 * {@link Builder#returnNumOutputTokens}), else one per response that carries text.
 *
 * <p>The tensors follow one of two {@link Convention}s: TensorRT-LLM's ensemble
 * ({@code text_input}, {@code max_tokens}, {@code stream} as input tensors), or Triton's vLLM backend
 * ({@code text_input}, {@code stream}, and a JSON {@code sampling_parameters}). Both answer with a
 * BYTES {@code text_output}. {@code http://} speaks h2c (HTTP/2 with prior knowledge, what Triton's
 * gRPC port serves), {@code https://} h2 by ALPN. Instances are immutable; the API key and header
 * values never appear in {@code toString()}, records or errors.
 */
public final class TritonGrpcTarget implements Target {

  /** The method's path: package {@code inference}, service {@code GRPCInferenceService}. */
  public static final String METHOD_PATH = "/inference.GRPCInferenceService/ModelStreamInfer";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String GRPC = "application/grpc";

  /** How a model names its inputs: the conventions of the two LLM backends Triton serves. */
  public enum Convention {
    /**
     * TensorRT-LLM's {@code ensemble} and {@code tensorrt_llm_bls} models: BYTES {@code text_input},
     * INT32 {@code max_tokens}, BOOL {@code stream}, FP32 {@code temperature} when set, each of shape
     * [1, 1]; {@code ignore_eos} becomes INT32 {@code min_length} equal to {@code max_tokens}.
     */
    TENSORRT_LLM,
    /**
     * Triton's vLLM backend: BYTES {@code text_input}, BOOL {@code stream}, BOOL
     * {@code exclude_input_in_output} (true) and BYTES {@code sampling_parameters}, a JSON object with
     * {@code max_tokens}, {@code temperature} and {@code ignore_eos}, each of shape [1].
     */
    VLLM
  }

  private final URI url;
  private final String authority;
  private final String model;
  private final String modelVersion;
  private final Convention convention;
  private final String textInput;
  private final String maxTokensInput;
  private final String textOutput;
  private final String apiKey;
  private final boolean sendRequestId;
  private final boolean returnNumOutputTokens;
  private final Timeouts timeouts;
  private final Duration deadline;
  private final int maxMessageBytes;
  private final Clock clock;
  private final NettyTransport transport;
  private final Redactor redactor;

  private TritonGrpcTarget(Builder b) {
    this.url = b.url;
    this.authority = b.url.getRawAuthority();
    this.model = b.model;
    this.modelVersion = b.modelVersion;
    this.convention = b.convention;
    this.textInput = b.textInput;
    this.maxTokensInput = b.maxTokensInput;
    this.textOutput = b.textOutput;
    this.apiKey = b.apiKey;
    this.sendRequestId = b.sendRequestId;
    this.returnNumOutputTokens = b.returnNumOutputTokens != null ? b.returnNumOutputTokens
        : b.convention == Convention.VLLM;
    this.timeouts = new Timeouts(b.connectTimeout, b.readTimeout, b.callTimeout);
    this.deadline = b.deadline;
    this.maxMessageBytes = b.maxMessageBytes;
    this.clock = b.clock;
    if (b.transport != null) {
      if (b.insecureTls || !b.keepAliveInterval.isZero() || b.streamsPerConnection > 0) {
        throw new IllegalStateException("insecureTls, keepAlive and streamsPerConnection apply to the transport this "
            + "builder makes; configure the NettyTransport given with transport(...) itself");
      }
      this.transport = b.transport;
    } else {
      NettyTransport.Builder t = NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2)
          .keepAlive(b.idleKeepAlive).insecureTls(b.insecureTls).http2KeepAlive(b.keepAliveInterval, b.keepAliveTimeout);
      if (b.streamsPerConnection > 0) {
        t.streamsPerConnection(b.streamsPerConnection);
      }
      this.transport = t.build();
    }
    this.redactor = Redactor.of(List.of(apiKey));
  }

  /**
   * A target for {@code model}'s streaming inference; {@code baseUrl} is the server's gRPC address,
   * e.g. {@code http://localhost:8001} (Triton's default gRPC port), or {@code https://...} for TLS.
   */
  public static Builder streamInfer(String baseUrl, String model) {
    return new Builder(baseUrl, model);
  }

  /** The model this target asks for. */
  public String model() {
    return model;
  }

  /** The tensor convention of the model's inputs. */
  public Convention convention() {
    return convention;
  }

  /** The URL each call is posted to (the method's path on the server), without userinfo. */
  public String url() {
    return OutboundRequest.redactedUrl(url);
  }

  /** The HTTP/2 transport that carries the calls. */
  public NettyTransport transport() {
    return transport;
  }

  /** Whether each call asks for {@code num_output_tokens}, the tokens of each response (see the builder). */
  public boolean returnsNumOutputTokens() {
    return returnNumOutputTokens;
  }

  /** The deadline sent with each call as {@code grpc-timeout}; empty when none is sent (the default). */
  public Optional<Duration> deadline() {
    return deadline.isZero() ? Optional.empty() : Optional.of(deadline);
  }

  @Override
  public boolean isAsync() {
    return true;
  }

  @Override
  public List<Probe> healthProbes() {
    return transport.healthProbes();
  }

  @Override
  public boolean insecureTls() {
    return transport.insecureTls();
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
    GrpcExchange call = send(request, observer, cancellation);
    try {
      call.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancellation.cancel();
      call.onFailure(Failure.of(ErrorCategory.CANCELLED, "the calling thread was interrupted"), clock.nanoTime());
    }
  }

  private GrpcExchange send(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    OutboundRequest out = outbound(request);
    Redactor r = redactor.withHeaders(request.params().headers(), Set.of());
    GrpcExchange call = new GrpcExchange(returnNumOutputTokens ? TokenCountRefusal.hinting(observer) : observer,
        clock, r, textOutput, maxMessageBytes);
    transport.start(out, call, cancellation);
    return call;
  }

  /** The HTTP/2 request of one call; package-private for tests. */
  OutboundRequest outbound(InferenceRequest request) {
    if (request.prompt().hasMedia()) {
      throw new IllegalArgumentException("TritonGrpcTarget sends text only; the prompt has image or audio parts");
    }
    List<OutboundRequest.Header> headers = new ArrayList<>(8);
    headers.add(new OutboundRequest.Header("te", "trailers"));
    headers.add(new OutboundRequest.Header("user-agent", "infermark-grpc"));
    if (!deadline.isZero()) {
      headers.add(new OutboundRequest.Header("grpc-timeout", grpcTimeout(deadline)));
    }
    if (!apiKey.isEmpty()) {
      headers.add(new OutboundRequest.Header("authorization", "Bearer " + apiKey));
    }
    if (sendRequestId && !request.id().isEmpty()) {
      headers.add(new OutboundRequest.Header("x-request-id", request.id()));
    }
    for (Map.Entry<String, String> h : request.params().headers().entrySet()) {
      headers.add(new OutboundRequest.Header(h.getKey().toLowerCase(Locale.ROOT), h.getValue()));
    }
    return new OutboundRequest("POST", url, headers, KServeWire.grpcFrame(message(request)), GRPC, timeouts);
  }

  /** A deadline as {@code grpc-timeout}: at most 8 digits and a unit. */
  static String grpcTimeout(Duration d) {
    long millis = Math.max(1, d.toMillis());
    return millis <= 99_999_999L ? millis + "m" : Math.min(99_999_999L, d.toSeconds()) + "S";
  }

  /** The {@code ModelInferRequest} of a request, encoded; package-private for tests. */
  byte[] message(InferenceRequest request) {
    GenerationParams p = request.params();
    KServeWire.Writer m = new KServeWire.Writer().string(1, model);
    if (!modelVersion.isEmpty()) {
      m.string(2, modelVersion);
    }
    if (!request.id().isEmpty()) {
      m.string(3, request.id());
    }
    for (Map.Entry<String, Object> e : p.extraBody().entrySet()) {
      m.message(4, new KServeWire.Writer().string(1, e.getKey()).message(2, parameter(e.getKey(), e.getValue())));
    }
    long[] shape = convention == Convention.TENSORRT_LLM ? new long[] {1, 1} : new long[] {1};
    byte[] prompt = request.prompt().text().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    m.message(5, tensor(textInput, "BYTES", shape, new KServeWire.Writer().bytes(8, prompt)));
    if (convention == Convention.TENSORRT_LLM) {
      p.maxTokens().ifPresent(n -> m.message(5, tensor(maxTokensInput, "INT32", shape,
          new KServeWire.Writer().packedVarints(2, n))));
      m.message(5, tensor("stream", "BOOL", shape, new KServeWire.Writer().packedVarints(1, p.stream() ? 1 : 0)));
      p.temperature().ifPresent(t -> m.message(5, tensor("temperature", "FP32", shape,
          new KServeWire.Writer().packedFloats(6, (float) t))));
      if (p.ignoreEos() && p.maxTokens().isPresent()) {
        m.message(5, tensor("min_length", "INT32", shape,
            new KServeWire.Writer().packedVarints(2, p.maxTokens().getAsInt())));
      }
    } else {
      m.message(5, tensor("stream", "BOOL", shape, new KServeWire.Writer().packedVarints(1, p.stream() ? 1 : 0)));
      m.message(5, tensor("exclude_input_in_output", "BOOL", shape, new KServeWire.Writer().packedVarints(1, 1)));
      ObjectNode sampling = MAPPER.createObjectNode();
      p.maxTokens().ifPresent(n -> sampling.put("max_tokens", n));
      p.temperature().ifPresent(t -> sampling.put("temperature", t));
      if (p.ignoreEos()) {
        sampling.put("ignore_eos", true);
      }
      byte[] json;
      try {
        json = MAPPER.writeValueAsBytes(sampling);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e); // a tree of numbers and booleans always serialises
      }
      m.message(5, tensor("sampling_parameters", "BYTES", shape, new KServeWire.Writer().bytes(8, json)));
    }
    if (returnNumOutputTokens) {
      m.message(5, tensor("return_num_output_tokens", "BOOL", shape, new KServeWire.Writer().packedVarints(1, 1)));
    }
    m.message(6, new KServeWire.Writer().string(1, textOutput));
    if (returnNumOutputTokens) {
      m.message(6, new KServeWire.Writer().string(1, StreamInferResponseReader.TOKEN_COUNT_OUTPUT));
    }
    return m.toByteArray();
  }

  private static KServeWire.Writer tensor(String name, String datatype, long[] shape, KServeWire.Writer contents) {
    return new KServeWire.Writer().string(1, name).string(2, datatype).packedVarints(3, shape).message(5, contents);
  }

  /** An extra body field as an InferParameter: a boolean, an integer, a double or a string. */
  private static KServeWire.Writer parameter(String name, Object value) {
    KServeWire.Writer w = new KServeWire.Writer();
    if (value instanceof Boolean b) {
      return w.bool(1, b);
    }
    if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return w.int64(2, ((Number) value).longValue());
    }
    if (value instanceof Number n) {
      return w.double64(4, n.doubleValue());
    }
    if (value instanceof CharSequence s) {
      return w.string(3, s.toString());
    }
    throw new IllegalArgumentException("extra body field \"" + name + "\" is a " + value.getClass().getSimpleName()
        + "; a gRPC request parameter is a boolean, a number or a string");
  }

  @Override
  public void close() {
    transport.close();
  }

  /**
   * One line for the run's record: method URL, model, convention, and what the transport learnt: the
   * keepalive settings and the SETTINGS the server announced.
   */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("TritonGrpcTarget[ModelStreamInfer ").append(url()).append(", model ")
        .append(model).append(modelVersion.isEmpty() ? "" : " v" + modelVersion).append(", ")
        .append(convention.name().toLowerCase(Locale.ROOT)).append(returnNumOutputTokens ? " + num_output_tokens" : "")
        .append(", ").append(transport.name()).append(" ")
        .append(url.getScheme().equalsIgnoreCase("https") ? "h2" : "h2c");
    transport.http2KeepAliveInterval().ifPresentOrElse(
        i -> b.append(", keepalive ").append(i.toMillis()).append(" ms/").append(transport.http2KeepAliveTimeout()
            .toMillis()).append(" ms"), () -> b.append(", keepalive off"));
    if (!deadline.isZero()) {
      b.append(", deadline ").append(deadline.toMillis()).append(" ms");
    }
    transport.http2Settings().forEach(s -> b.append(", server ").append(s));
    return b.append(apiKey.isEmpty() ? "" : ", api key ***").append(insecureTls() ? ", INSECURE TLS" : "")
        .append(']').toString();
  }

  /** Configures a {@link TritonGrpcTarget}. */
  public static final class Builder {
    private final URI url;
    private final String model;
    private String modelVersion = "";
    private Convention convention = Convention.TENSORRT_LLM;
    private String textInput = "text_input";
    private String maxTokensInput = "max_tokens";
    private String textOutput = "text_output";
    private String apiKey = "";
    private boolean sendRequestId = true;
    private Boolean returnNumOutputTokens;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration readTimeout = Duration.ofMinutes(5);
    private Duration callTimeout = Duration.ofMinutes(10);
    private Duration deadline = Duration.ZERO;
    private Duration idleKeepAlive = Duration.ofSeconds(4);
    private Duration keepAliveInterval = Duration.ZERO;
    private Duration keepAliveTimeout = Duration.ofSeconds(20);
    private int streamsPerConnection;
    private int maxMessageBytes = 4 << 20;
    private boolean insecureTls;
    private Clock clock = Clock.system();
    private NettyTransport transport;

    private Builder(String baseUrl, String model) {
      Objects.requireNonNull(baseUrl, "baseUrl");
      Objects.requireNonNull(model, "model");
      if (model.isBlank()) {
        throw new IllegalArgumentException("model must not be blank");
      }
      this.model = model.strip();
      URI parsed;
      try {
        parsed = new URI(baseUrl.strip());
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("not an http(s) URL: " + baseUrl.replaceAll("//[^/@]*@", "//***@"));
      }
      String scheme = parsed.getScheme() == null ? "" : parsed.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || parsed.getHost() == null) {
        throw new IllegalArgumentException("not an http(s) URL: " + baseUrl.replaceAll("//[^/@]*@", "//***@")
            + " (give the gRPC port as http://host:8001 for h2c or https://host:port for TLS)");
      }
      if (parsed.getRawUserInfo() != null) {
        throw new IllegalArgumentException("a gRPC URL takes no user:password; use apiKey(...) for a bearer token");
      }
      String path = parsed.getRawPath() == null ? "" : parsed.getRawPath();
      while (path.endsWith("/")) {
        path = path.substring(0, path.length() - 1);
      }
      try {
        this.url = new URI(scheme + "://" + parsed.getRawAuthority() + path + METHOD_PATH);
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("not an http(s) URL: " + baseUrl);
      }
    }

    /** The model version to ask for (default empty: the server chooses). */
    public Builder modelVersion(String version) {
      this.modelVersion = Objects.requireNonNull(version, "modelVersion").strip();
      return this;
    }

    /** The model's tensor convention (default {@link Convention#TENSORRT_LLM}). */
    public Builder convention(Convention c) {
      this.convention = Objects.requireNonNull(c, "convention");
      return this;
    }

    /** The name of the model's text input (default {@code text_input}). */
    public Builder textInput(String name) {
      this.textInput = nonBlank(name, "textInput");
      return this;
    }

    /** The name of TensorRT-LLM's output-length input (default {@code max_tokens}). */
    public Builder maxTokensInput(String name) {
      this.maxTokensInput = nonBlank(name, "maxTokensInput");
      return this;
    }

    /** The name of the model's BYTES text output (default {@code text_output}). */
    public Builder textOutput(String name) {
      this.textOutput = nonBlank(name, "textOutput");
      return this;
    }

    /** A bearer token sent as {@code authorization} metadata; never logged or recorded. Empty sends none. */
    public Builder apiKey(String key) {
      Objects.requireNonNull(key, "apiKey");
      if (key.chars().anyMatch(c -> c == '\r' || c == '\n' || c == 0)) {
        throw new IllegalArgumentException("apiKey contains CR, LF or NUL");
      }
      this.apiKey = key;
      return this;
    }

    /** Send each request's id as {@code x-request-id} metadata and in {@code ModelInferRequest.id} (default true). */
    public Builder sendRequestId(boolean send) {
      this.sendRequestId = send;
      return this;
    }

    /**
     * Ask for each response's token count: a BOOL input {@code return_num_output_tokens} and the output
     * {@code num_output_tokens}, which Triton's vLLM backend (r24.12 on) and TensorRT-LLM's
     * {@code tensorrt_llm} and BLS models answer with the tokens of that response. Without it a server that
     * sends several tokens in one response is counted one token per response. Default: on for
     * {@link Convention#VLLM}, off for {@link Convention#TENSORRT_LLM} (its stock {@code ensemble} does not
     * declare the input, and Triton refuses a call with an input the model does not declare: such a
     * refusal's failure message says to turn this off). A {@code num_output_tokens} the server sends
     * unasked is read either way.
     */
    public Builder returnNumOutputTokens(boolean ask) {
      this.returnNumOutputTokens = ask;
      return this;
    }

    /** Time allowed to establish a connection, TCP to the server's SETTINGS (default 10 s). */
    public Builder connectTimeout(Duration d) {
      this.connectTimeout = positive(d, "connectTimeout");
      return this;
    }

    /** Longest silence allowed on a call between two reads (default 5 min). */
    public Builder readTimeout(Duration d) {
      this.readTimeout = positive(d, "readTimeout");
      return this;
    }

    /** The client's own deadline for a whole call, from send to trailers (default 10 min). */
    public Builder callTimeout(Duration d) {
      this.callTimeout = positive(d, "callTimeout");
      return this;
    }

    /**
     * A deadline sent to the server as {@code grpc-timeout} (default none): the server abandons a call
     * still running then and answers {@code DEADLINE_EXCEEDED}, recorded as a call timeout.
     */
    public Builder deadline(Duration d) {
      this.deadline = positive(d, "deadline");
      return this;
    }

    /**
     * gRPC keepalive for the connections this builder's transport opens: a PING after
     * {@code interval} without a read while calls are in flight, the connection closed when it is not
     * answered within {@code timeout} (see {@link NettyTransport.Builder#http2KeepAlive}). Off by
     * default; recorded in the target's description, so on every run.
     */
    public Builder keepAlive(Duration interval, Duration timeout) {
      this.keepAliveInterval = positive(interval, "keepAlive interval");
      this.keepAliveTimeout = positive(timeout, "keepAlive timeout");
      return this;
    }

    /** How long an idle connection is kept for reuse (default 4 s). */
    public Builder idleKeepAlive(Duration d) {
      this.idleKeepAlive = positive(d, "idleKeepAlive");
      return this;
    }

    /** Most calls one HTTP/2 connection carries at once (default 100; the server's SETTINGS cap it). */
    public Builder streamsPerConnection(int n) {
      if (n < 1 || n > 10_000) {
        throw new IllegalArgumentException("streamsPerConnection must be 1..10000, was " + n);
      }
      this.streamsPerConnection = n;
      return this;
    }

    /**
     * The largest response message accepted (default 4 MiB, gRPC's default); a larger one fails the
     * call as {@link ErrorCategory#MALFORMED_STREAM} instead of filling memory.
     */
    public Builder maxMessageBytes(int bytes) {
      if (bytes <= 0) {
        throw new IllegalArgumentException("maxMessageBytes must be > 0, was " + bytes);
      }
      this.maxMessageBytes = bytes;
      return this;
    }

    /** Switches TLS verification off for an {@code https://} server (default false); records are marked. */
    public Builder insecureTls(boolean insecure) {
      this.insecureTls = insecure;
      return this;
    }

    /** The clock that stamps milestones and responses; must be the run's clock (default system). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The transport that carries the calls, which must speak HTTP/2 ({@link HttpVersionPolicy#HTTP_2});
     * the target owns it and closes it on close.
     */
    public Builder transport(Transport transport) {
      Objects.requireNonNull(transport, "transport");
      if (!(transport instanceof NettyTransport n) || n.httpVersion() != HttpVersionPolicy.HTTP_2) {
        throw new IllegalArgumentException("gRPC needs HTTP/2: give a NettyTransport built with "
            + "httpVersion(HttpVersionPolicy.HTTP_2), not " + transport);
      }
      this.transport = n;
      return this;
    }

    /** Returns the target (and starts its transport's I/O thread unless one was given). */
    public TritonGrpcTarget build() {
      return new TritonGrpcTarget(this);
    }

    private static String nonBlank(String s, String what) {
      Objects.requireNonNull(s, what);
      if (s.isBlank()) {
        throw new IllegalArgumentException(what + " must not be blank");
      }
      return s;
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
