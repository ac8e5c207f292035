package io.infermark.metrics.otel;

import io.infermark.core.RunListener;
import io.infermark.core.RunStart;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ConnectionPhases;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Exports a run to OpenTelemetry in the GenAI semantic conventions ({@link GenAiConventions}): a
 * {@link RunListener} that records the GenAI client metrics for every measured request, a CLIENT span
 * per sent request, and the user's own {@link HistogramMapping}s, and injects the W3C
 * {@code traceparent} of each request's span into its headers so that server spans join the trace.
 *
 * <pre>{@code
 * GenAiTelemetry otel = GenAiTelemetry.builder(openTelemetry)
 *     .operation("chat").provider("openai").model("llama-3-8b").server("localhost", 8000)
 *     .build();
 * Benchmark.target(target).prompts(prompts).load(load).listener(otel).run();
 * }</pre>
 *
 * <p>What is recorded, per measured (non-warmup) request that was sent:
 * <ul>
 *   <li>{@code gen_ai.client.operation.duration}: stream close minus send, seconds, with
 *       {@code error.type} when it failed;
 *   <li>{@code gen_ai.client.token.usage}: input tokens when the server reported them, output tokens
 *       (N) when the request succeeded;
 *   <li>{@code gen_ai.client.operation.time_to_first_chunk}: TTFT (first token-bearing chunk; role-only
 *       and empty chunks do not count) in seconds, when there was one;
 *   <li>{@code gen_ai.client.operation.time_per_output_chunk}: each gap between consecutive
 *       token-bearing chunks (infermark's ITL), seconds;
 *   <li>each {@link HistogramMapping}'s value.
 * </ul>
 * Every metric carries {@code gen_ai.operation.name}, {@code gen_ai.provider.name} (Required by the
 * conventions: {@code openai} by default, the API infermark's target speaks; name the real provider
 * with {@link Builder#provider}), {@code gen_ai.request.model}, {@code server.address} and
 * {@code server.port} as configured, or taken from an {@link OpenAiTarget} with {@link Builder#target}
 * (unset ones are left out). {@code error.type} is the HTTP status code for {@code HTTP_STATUS} failures
 * ({@code "503"}) and the lower-case {@link ErrorCategory} otherwise ({@code "timeout"}).
 *
 * <p>The span ({@code {operation} {model}}, kind CLIENT) starts in {@link #beforeSend} and ends at the
 * request's stream close; its timestamps convert the run's monotonic clock to epoch time through
 * {@link RunStart#startedAt()} and {@link RunStart#originNanos()}. It carries the attributes above plus
 * {@code gen_ai.usage.input_tokens}, {@code gen_ai.usage.output_tokens},
 * {@code gen_ai.response.time_to_first_chunk} and {@code gen_ai.response.finish_reasons}; a failed
 * request sets the span status to ERROR and {@code error.type}, and carries no usage attributes (its
 * token counts are not the server's). Warmup requests get spans (the server saw them) but no metrics.
 * A pipeline target's retrieval stage ({@link io.infermark.core.pipeline.RetrievalTarget}) adds the span
 * events {@value #RETRIEVAL_START_EVENT} and {@value #RETRIEVAL_END_EVENT} at the stage's start and end and
 * the attribute {@value #RETRIEVAL_DURATION} (seconds); the span's time after the end event is generation.
 *
 * <p>Nothing here reads prompts, outputs or header values, so no content or secret reaches telemetry.
 */
public final class GenAiTelemetry implements RunListener {

  /** The instrumentation scope name. */
  public static final String SCOPE = "io.infermark.metrics";
  /** Span event: a pipeline's retrieval stage started (before the generation request). */
  public static final String RETRIEVAL_START_EVENT = "infermark.retrieval.start";
  /** Span event: a pipeline's retrieval stage ended; generation starts after it. */
  public static final String RETRIEVAL_END_EVENT = "infermark.retrieval.end";
  /** Span attribute: the retrieval stage's duration, seconds. */
  public static final String RETRIEVAL_DURATION = "infermark.retrieval.duration";

  private final GenAiConventions conventions;
  private final OpenTelemetry openTelemetry;
  private final Tracer tracer;
  private final String operation;
  private final String provider;
  private final String model;
  private final String serverAddress;
  private final int serverPort;
  private final Attributes common;
  private final DoubleHistogram duration;
  private final LongHistogram tokens;
  private final DoubleHistogram timeToFirstChunk;
  private final DoubleHistogram timePerOutputChunk;
  private final List<HistogramMapping> mappings;
  private final List<DoubleHistogram> mapped;
  private final Map<String, Span> spans = new ConcurrentHashMap<>();
  private volatile RunStart start;

  private GenAiTelemetry(Builder b) {
    this.conventions = b.conventions;
    this.openTelemetry = b.openTelemetry;
    this.operation = b.operation;
    this.provider = b.provider;
    this.model = b.model;
    this.serverAddress = b.serverAddress;
    this.serverPort = b.serverPort;
    this.mappings = List.copyOf(b.mappings);
    Meter meter = openTelemetry.getMeter(SCOPE);
    this.tracer = openTelemetry.getTracer(SCOPE);
    AttributesBuilder a = Attributes.builder().put(conventions.operationName(), operation);
    if (!provider.isEmpty()) {
      a.put(conventions.providerName(), provider);
    }
    if (!model.isEmpty()) {
      a.put(conventions.requestModel(), model);
    }
    if (!serverAddress.isEmpty()) {
      a.put(conventions.serverAddress(), serverAddress);
      if (serverPort > 0) {
        a.put(conventions.serverPort(), (long) serverPort);
      }
    }
    this.common = a.build();
    this.duration = meter.histogramBuilder(conventions.operationDuration()).setUnit(conventions.secondsUnit())
        .setDescription("GenAI operation duration.")
        .setExplicitBucketBoundariesAdvice(conventions.operationDurationBuckets()).build();
    this.tokens = meter.histogramBuilder(conventions.tokenUsage()).ofLongs().setUnit(conventions.tokenUnit())
        .setDescription("Number of input and output tokens used.")
        .setExplicitBucketBoundariesAdvice(conventions.tokenUsageBuckets()).build();
    this.timeToFirstChunk = meter.histogramBuilder(conventions.timeToFirstChunk()).setUnit(conventions.secondsUnit())
        .setDescription("Time to receive the first chunk of a streaming response.")
        .setExplicitBucketBoundariesAdvice(conventions.timeToFirstChunkBuckets()).build();
    this.timePerOutputChunk = meter.histogramBuilder(conventions.timePerOutputChunk())
        .setUnit(conventions.secondsUnit()).setDescription("Time between consecutive output chunks.")
        .setExplicitBucketBoundariesAdvice(conventions.timePerOutputChunkBuckets()).build();
    this.mapped = mappings.stream().map(m -> {
      var builder = meter.histogramBuilder(m.name()).setUnit(m.unit()).setDescription(m.description());
      if (!m.buckets().isEmpty()) {
        builder.setExplicitBucketBoundariesAdvice(m.buckets());
      }
      return builder.build();
    }).toList();
  }

  /** A builder exporting to {@link GlobalOpenTelemetry} (a no-op unless the application installed an SDK). */
  public static Builder builder() {
    return new Builder(GlobalOpenTelemetry.get());
  }

  /** A builder exporting to the given OpenTelemetry instance. */
  public static Builder builder(OpenTelemetry openTelemetry) {
    return new Builder(Objects.requireNonNull(openTelemetry, "openTelemetry"));
  }

  @Override
  public void onRunStarted(RunStart runStart) {
    this.start = runStart;
  }

  /** Starts the request's span and adds its {@code traceparent} (and any other propagated fields) as headers. */
  @Override
  public InferenceRequest beforeSend(InferenceRequest request) {
    RunStart s = start;
    var spanBuilder = tracer.spanBuilder(conventions.spanName(operation, model)).setSpanKind(SpanKind.CLIENT)
        .setNoParent().setAllAttributes(common);
    if (s != null) {
      spanBuilder.setStartTimestamp(epochNanos(s, s.clock().nanoTime() - s.originNanos()), TimeUnit.NANOSECONDS);
    }
    Span span = spanBuilder.startSpan();
    spans.put(request.id(), span);
    Map<String, String> headers = new LinkedHashMap<>();
    openTelemetry.getPropagators().getTextMapPropagator().inject(Context.root().with(span), headers,
        (carrier, key, value) -> carrier.put(key, value));
    if (headers.isEmpty()) {
      return request;
    }
    GenerationParams.Builder params = request.params().toBuilder();
    headers.forEach(params::header);
    return new InferenceRequest(request.id(), request.prompt(), params.build());
  }

  @Override
  public void onRecord(RequestRecord r) {
    Span span = spans.remove(r.requestId());
    if (span != null) {
      endSpan(span, r);
    }
    if (!r.measured() || !r.wasSent()) {
      return;
    }
    Attributes attributes = attributes(r);
    duration.record(r.endOffsetNanos() / 1e9, attributes);
    r.usage().promptTokens().ifPresent(n -> tokens.record(n, attributes.toBuilder()
        .put(conventions.tokenType(), "input").build()));
    if (r.succeeded()) {
      tokens.record(r.outputTokens(), attributes.toBuilder().put(conventions.tokenType(), "output").build());
    }
    ChunkTimeline c = r.chunks();
    c.firstTokenOffsetNanos().ifPresent(t -> timeToFirstChunk.record(t / 1e9, attributes));
    if (c.tokenChunkCount() > 1) {
      ChunkTimeline.TokenGaps gaps = c.gaps();
      while (gaps.next()) {
        timePerOutputChunk.record(gaps.gapNanos() / 1e9, attributes);
      }
    }
    for (int i = 0; i < mappings.size(); i++) {
      HistogramMapping m = mappings.get(i);
      OptionalDouble v = m.value().apply(r);
      if (v.isPresent()) {
        AttributesBuilder a = Attributes.builder();
        m.attributes().forEach((k, f) -> a.put(k, f.apply(r)));
        mapped.get(i).record(v.getAsDouble(), a.build());
      }
    }
  }

  @Override
  public void onRunFinished(io.infermark.core.RunResult result) {
    // Requests that never produced a record cannot exist (the engine reports every one), but end any
    // span left over so that nothing leaks if a host drives the listener by hand.
    spans.values().forEach(Span::end);
    spans.clear();
  }

  private Attributes attributes(RequestRecord r) {
    return r.failure().map(f -> common.toBuilder().put(conventions.errorType(), errorType(f)).build())
        .orElse(common);
  }

  private void endSpan(Span span, RequestRecord r) {
    if (r.succeeded()) {
      span.setAttribute(conventions.usageOutputTokens(), (long) r.outputTokens());
      r.usage().promptTokens().ifPresent(n -> span.setAttribute(conventions.usageInputTokens(), (long) n));
    }
    r.chunks().firstTokenOffsetNanos().ifPresent(t -> span.setAttribute(conventions.responseTimeToFirstChunk(),
        t / 1e9));
    r.finishReason().ifPresent(f -> span.setAttribute(conventions.responseFinishReasons(), List.of(f)));
    r.failure().ifPresent(f -> {
      span.setAttribute(conventions.errorType(), errorType(f));
      span.setStatus(StatusCode.ERROR, f.category().name().toLowerCase(Locale.ROOT));
    });
    RunStart s = start;
    stageEvents(span, r, s);
    if (s != null) {
      span.end(epochNanos(s, r.sendNanos() + r.endOffsetNanos()), TimeUnit.NANOSECONDS);
    } else {
      span.end();
    }
  }

  /**
   * A pipeline's client-side retrieval stage ({@link Phase#RETRIEVAL_START}, {@link Phase#RETRIEVAL_END}) as
   * span events at their times, and the stage's duration in seconds as an attribute.
   */
  private static void stageEvents(Span span, RequestRecord r, RunStart s) {
    ConnectionPhases phases = r.phases();
    for (Phase p : new Phase[] {Phase.RETRIEVAL_START, Phase.RETRIEVAL_END}) {
      phases.offsetNanos(p).ifPresent(offset -> {
        String name = p == Phase.RETRIEVAL_START ? RETRIEVAL_START_EVENT : RETRIEVAL_END_EVENT;
        if (s != null) {
          span.addEvent(name, epochNanos(s, r.sendNanos() + offset), TimeUnit.NANOSECONDS);
        } else {
          span.addEvent(name);
        }
      });
    }
    phases.retrievalNanos().ifPresent(n -> span.setAttribute(RETRIEVAL_DURATION, n / 1e9));
  }

  /** Epoch nanoseconds of a time given as nanoseconds from the run's origin. */
  static long epochNanos(RunStart s, long fromOriginNanos) {
    return s.epochNanos(fromOriginNanos); // the run's one mapping, shared with RunResult.epochNanos
  }

  static String errorType(Failure f) {
    return f.category() == ErrorCategory.HTTP_STATUS && f.httpStatus() > 0 ? Integer.toString(f.httpStatus())
        : f.category().name().toLowerCase(Locale.ROOT);
  }

  @Override
  public String toString() {
    return "GenAiTelemetry[" + conventions + ", " + conventions.spanName(operation, model) + ", " + mappings.size()
        + " custom histograms]";
  }

  /** Builds a {@link GenAiTelemetry}. */
  public static final class Builder {
    private final OpenTelemetry openTelemetry;
    private GenAiConventions conventions = GenAiConventions.latest();
    private String operation = "chat";
    private String provider = "openai";
    private String model = "";
    private String serverAddress = "";
    private int serverPort;
    private final List<HistogramMapping> mappings = new java.util.ArrayList<>();

    private Builder(OpenTelemetry openTelemetry) {
      this.openTelemetry = openTelemetry;
    }

    /** Which convention names to emit; {@link GenAiConventions#latest()} by default. */
    public Builder conventions(GenAiConventions conventions) {
      this.conventions = Objects.requireNonNull(conventions, "conventions");
      return this;
    }

    /** {@code gen_ai.operation.name}: {@code chat} (default), {@code text_completion}, ... */
    public Builder operation(String operation) {
      this.operation = nonBlank(operation, "operation");
      return this;
    }

    /** {@code gen_ai.provider.name}, e.g. {@code openai} (the default), {@code aws.bedrock}, or a custom name. */
    public Builder provider(String provider) {
      this.provider = nonBlank(provider, "provider");
      return this;
    }

    /** {@code gen_ai.request.model}; unset by default. */
    public Builder model(String model) {
      this.model = nonBlank(model, "model");
      return this;
    }

    /**
     * {@code server.address} and {@code server.port}.
     *
     * @throws IllegalArgumentException if the port is outside [1, 65535]
     */
    public Builder server(String address, int port) {
      this.serverAddress = nonBlank(address, "address");
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("port must be in [1, 65535], was " + port);
      }
      this.serverPort = port;
      return this;
    }

    /**
     * Takes {@code gen_ai.request.model}, {@code server.address}, {@code server.port} and the operation
     * ({@code chat} or {@code text_completion}) from the target; the port is the URL's, or 80/443 by scheme.
     */
    public Builder target(OpenAiTarget target) {
      Objects.requireNonNull(target, "target");
      java.net.URI uri = java.net.URI.create(target.url());
      model(target.model());
      int port = uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
      server(uri.getHost(), port);
      operation(target.endpoint() == OpenAiTarget.Endpoint.CHAT ? "chat" : "text_completion");
      return this;
    }

    /** Adds a user-named histogram. */
    public Builder histogram(HistogramMapping mapping) {
      mappings.add(Objects.requireNonNull(mapping, "mapping"));
      return this;
    }

    /** The listener. */
    public GenAiTelemetry build() {
      return new GenAiTelemetry(this);
    }

    private static String nonBlank(String value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isBlank()) {
        throw new IllegalArgumentException(name + " must not be blank");
      }
      return value;
    }
  }
}
