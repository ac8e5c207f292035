package io.infermark.metrics.otel;

import static io.infermark.metrics.TestRuns.ms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.RunStart;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ConnectionPhases;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.TestRuns;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class GenAiTelemetryTest {

  private static final long ORIGIN = 5_000_000_000L;
  private static final GenAiConventions C = GenAiConventions.V1_41;

  private InMemoryMetricReader metrics;
  private InMemorySpanExporter spans;
  private OpenTelemetrySdk sdk;
  private final AtomicLong now = new AtomicLong(ORIGIN);

  @BeforeEach
  void setUp() {
    metrics = InMemoryMetricReader.create();
    spans = InMemorySpanExporter.create();
    sdk = OpenTelemetrySdk.builder()
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
        .build();
  }

  @AfterEach
  void tearDown() {
    sdk.close();
  }

  /** Runs two measured requests (one OK, one HTTP 503) and a warmup through the listener. */
  private List<InferenceRequest> drive(GenAiTelemetry otel) {
    otel.onRunStarted(new RunStart(TestRuns.STARTED_AT, ORIGIN, now::get, "test", LoadProfile.concurrency(1)
        .requests(3), GenerationParams.defaults(), OptionalLong.of(3)));
    now.set(ORIGIN + ms(50));
    InferenceRequest warm = otel.beforeSend(InferenceRequest.of("req-0", Prompt.user("w")));
    now.set(ORIGIN + ms(100));
    InferenceRequest ok = otel.beforeSend(InferenceRequest.of("req-1", Prompt.user("hello")));
    now.set(ORIGIN + ms(200));
    InferenceRequest bad = otel.beforeSend(InferenceRequest.of("req-2", Prompt.user("hello")));
    otel.onRecord(RequestRecord.builder().index(0).requestId("req-0").warmup(true).sendNanos(ms(50))
        .chunks(ChunkTimeline.builder().add(ms(1), ChunkKind.CONTENT, 1).build()).endOffsetNanos(ms(2)).build());
    otel.onRecord(RequestRecord.builder().index(1).requestId("req-1").intendedNanos(ms(100)).sendNanos(ms(100))
        .httpStatus(200).chunks(ChunkTimeline.builder().add(ms(2), ChunkKind.ROLE, -1)
            .add(ms(10), ChunkKind.CONTENT, -1).add(ms(20), ChunkKind.CONTENT, -1).add(ms(30), ChunkKind.CONTENT, -1)
            .build())
        .usage(Usage.of(50, 3)).finishReason("stop").endOffsetNanos(ms(32)).build());
    otel.onRecord(RequestRecord.builder().index(2).requestId("req-2").intendedNanos(ms(200)).sendNanos(ms(200))
        .httpStatus(503).failure(Optional.of(Failure.httpStatus(503, "busy"))).endOffsetNanos(ms(3)).build());
    return List.of(warm, ok, bad);
  }

  private GenAiTelemetry.Builder telemetry() {
    return GenAiTelemetry.builder(sdk).operation("chat").provider("openai").model("m1").server("localhost", 8000);
  }

  private MetricData metric(String name) {
    return metrics.collectAllMetrics().stream().filter(m -> m.getName().equals(name)).findFirst().orElseThrow();
  }

  private static Attributes base() {
    return Attributes.builder().put(C.operationName(), "chat").put(C.providerName(), "openai")
        .put(C.requestModel(), "m1").put(C.serverAddress(), "localhost").put(C.serverPort(), 8000L).build();
  }

  @Test
  void operationDurationHasSpecUnitBucketsAndErrorType() {
    drive(telemetry().build());
    MetricData d = metric("gen_ai.client.operation.duration");
    assertThat(d.getUnit()).isEqualTo("s");
    List<HistogramPointData> points = List.copyOf(d.getHistogramData().getPoints());
    assertThat(points).hasSize(2);
    assertThat(points).allSatisfy(p -> assertThat(p.getBoundaries()).containsExactly(0.01, 0.02, 0.04, 0.08, 0.16,
        0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92));
    HistogramPointData ok = points.stream().filter(p -> p.getAttributes().equals(base())).findFirst().orElseThrow();
    assertThat(ok.getCount()).isEqualTo(1);
    assertThat(ok.getSum()).isCloseTo(0.032, within(1e-12));
    HistogramPointData failed = points.stream()
        .filter(p -> "503".equals(p.getAttributes().get(C.errorType()))).findFirst().orElseThrow();
    assertThat(failed.getSum()).isCloseTo(0.003, within(1e-12));
    assertThat(failed.getAttributes().get(C.requestModel())).isEqualTo("m1");
  }

  @Test
  void tokenUsageSplitsInputAndOutput() {
    drive(telemetry().build());
    MetricData d = metric("gen_ai.client.token.usage");
    assertThat(d.getUnit()).isEqualTo("{token}");
    var points = d.getHistogramData().getPoints();
    assertThat(points).hasSize(2);
    var input = points.stream().filter(p -> "input".equals(p.getAttributes().get(C.tokenType()))).findFirst()
        .orElseThrow();
    var output = points.stream().filter(p -> "output".equals(p.getAttributes().get(C.tokenType()))).findFirst()
        .orElseThrow();
    assertThat(input.getSum()).isEqualTo(50.0);
    assertThat(output.getSum()).isEqualTo(3.0);
    assertThat(output.getBoundaries()).startsWith(1.0, 4.0, 16.0).endsWith(67108864.0).hasSize(14);
  }

  @Test
  void chunkTimingsAreTtftAndInterChunkGapsInSeconds() {
    drive(telemetry().build());
    HistogramPointData first = metric("gen_ai.client.operation.time_to_first_chunk").getHistogramData().getPoints()
        .iterator().next();
    assertThat(first.getCount()).isEqualTo(1);
    assertThat(first.getSum()).isCloseTo(0.010, within(1e-12)); // the role chunk at 2 ms does not count
    // semconv 1.41 advises the operation-duration buckets for both chunk metrics.
    assertThat(first.getBoundaries()).containsExactlyElementsOf(C.operationDurationBuckets()).startsWith(0.01, 0.02)
        .endsWith(81.92);
    HistogramPointData per = metric("gen_ai.client.operation.time_per_output_chunk").getHistogramData().getPoints()
        .iterator().next();
    assertThat(per.getCount()).isEqualTo(2);
    assertThat(per.getSum()).isCloseTo(0.020, within(1e-12));
    assertThat(per.getBoundaries()).containsExactlyElementsOf(C.operationDurationBuckets());
  }

  @Test
  void clientSpanPerRequestWithEpochTimesAndTraceparent() {
    List<InferenceRequest> sent = drive(telemetry().build());
    List<SpanData> finished = spans.getFinishedSpanItems();
    assertThat(finished).hasSize(3);
    SpanData ok = finished.stream().filter(s -> s.getAttributes().get(C.usageInputTokens()) != null).findFirst()
        .orElseThrow();
    assertThat(ok.getName()).isEqualTo("chat m1");
    assertThat(ok.getKind()).isEqualTo(SpanKind.CLIENT);
    long epoch = TestRuns.STARTED_AT.getEpochSecond() * 1_000_000_000L;
    assertThat(ok.getStartEpochNanos()).isEqualTo(epoch + ms(100));
    assertThat(ok.getEndEpochNanos()).isEqualTo(epoch + ms(132));
    // The one mapping: the run's epochNanos of the record's end is the span's end.
    RunStart start = new RunStart(TestRuns.STARTED_AT, ORIGIN, now::get, "test", LoadProfile.concurrency(1)
        .requests(3), GenerationParams.defaults(), OptionalLong.of(3));
    assertThat(start.epochNanos(ms(100) + ms(32))).isEqualTo(ok.getEndEpochNanos());
    assertThat(ok.getAttributes().get(C.usageOutputTokens())).isEqualTo(3L);
    assertThat(ok.getAttributes().get(C.responseTimeToFirstChunk())).isCloseTo(0.010, within(1e-12));
    assertThat(ok.getAttributes().get(C.responseFinishReasons())).containsExactly("stop");
    assertThat(ok.getAttributes().get(C.serverPort())).isEqualTo(8000L);
    String traceparent = sent.get(1).params().headers().get("traceparent");
    assertThat(traceparent).isEqualTo("00-" + ok.getTraceId() + "-" + ok.getSpanId() + "-"
        + ok.getSpanContext().getTraceFlags().asHex());
    assertThat(ok.getSpanContext().getTraceFlags().isSampled()).isTrue();
    SpanData failed = finished.stream().filter(s -> s.getStatus().getStatusCode() == StatusCode.ERROR).findFirst()
        .orElseThrow();
    assertThat(failed.getAttributes().get(C.errorType())).isEqualTo("503");
    assertThat(failed.getAttributes().get(C.usageOutputTokens())).isNull();
    assertThat(failed.getAttributes().get(C.usageInputTokens())).isNull();
    assertThat(sent.get(1).id()).isEqualTo("req-1");
    assertThat(sent.get(1).prompt()).isEqualTo(Prompt.user("hello"));
  }

  @Test
  void retrievalStageBecomesSpanEventsAtItsTimesAndADurationAttribute() {
    GenAiTelemetry otel = telemetry().build();
    otel.onRunStarted(new RunStart(TestRuns.STARTED_AT, ORIGIN, now::get, "test", LoadProfile.concurrency(1)
        .requests(1), GenerationParams.defaults(), OptionalLong.of(1)));
    now.set(ORIGIN + ms(100));
    otel.beforeSend(InferenceRequest.of("rag-0", Prompt.user("q")));
    long[] offsets = new long[Phase.values().length];
    java.util.Arrays.fill(offsets, -1);
    offsets[Phase.RETRIEVAL_START.ordinal()] = 0;
    offsets[Phase.RETRIEVAL_END.ordinal()] = ms(7);
    offsets[Phase.REQUEST_SENT.ordinal()] = ms(8);
    otel.onRecord(RequestRecord.builder().index(0).requestId("rag-0").intendedNanos(ms(100)).sendNanos(ms(100))
        .httpStatus(200).phases(ConnectionPhases.of(offsets))
        .chunks(ChunkTimeline.builder().add(ms(20), ChunkKind.CONTENT, 1).build()).endOffsetNanos(ms(25)).build());

    SpanData span = spans.getFinishedSpanItems().get(0);
    long epoch = TestRuns.STARTED_AT.getEpochSecond() * 1_000_000_000L;
    assertThat(span.getEvents()).extracting(EventData::getName)
        .containsExactly(GenAiTelemetry.RETRIEVAL_START_EVENT, GenAiTelemetry.RETRIEVAL_END_EVENT);
    assertThat(span.getEvents()).extracting(EventData::getEpochNanos)
        .containsExactly(epoch + ms(100), epoch + ms(107));
    assertThat(span.getAttributes().get(AttributeKey.doubleKey(GenAiTelemetry.RETRIEVAL_DURATION)))
        .isCloseTo(0.007, within(1e-12));
    assertThat(span.getEndEpochNanos()).isEqualTo(epoch + ms(125));
  }

  @Test
  void requestsWithoutAStageGetNoStageEvents() {
    drive(telemetry().build());
    assertThat(spans.getFinishedSpanItems()).allSatisfy(s -> {
      assertThat(s.getEvents()).isEmpty();
      assertThat(s.getAttributes().get(AttributeKey.doubleKey(GenAiTelemetry.RETRIEVAL_DURATION))).isNull();
    });
  }

  @Test
  void userNamedHistogramByModelAndInputLength() {
    HistogramMapping mapping = HistogramMapping.builder("model_inference_duration_seconds")
        .description("inference duration").buckets(0.01, 0.05, 0.1)
        .attribute("model", r -> "m1")
        .attribute("input_length", r -> HistogramMapping.lengthBucket(r.usage().promptTokens().orElse(0), 32, 128))
        .build();
    drive(telemetry().histogram(mapping).build());
    MetricData d = metric("model_inference_duration_seconds");
    assertThat(d.getUnit()).isEqualTo("s");
    HistogramPointData p = d.getHistogramData().getPoints().iterator().next();
    assertThat(d.getHistogramData().getPoints()).hasSize(1); // the failed request has no E2E
    assertThat(p.getAttributes()).isEqualTo(Attributes.of(AttributeKey.stringKey("model"), "m1",
        AttributeKey.stringKey("input_length"), "32-127"));
    assertThat(p.getSum()).isCloseTo(0.030, within(1e-12));
    assertThat(p.getBoundaries()).containsExactly(0.01, 0.05, 0.1);
    assertThat(p.getCounts()).containsExactly(0L, 1L, 0L, 0L);
  }

  @Test
  void warmupGetsASpanButNoMetrics() {
    drive(telemetry().build());
    long durations = metric("gen_ai.client.operation.duration").getHistogramData().getPoints().stream()
        .mapToLong(HistogramPointData::getCount).sum();
    assertThat(durations).isEqualTo(2);
    assertThat(spans.getFinishedSpanItems()).hasSize(3);
  }

  @Test
  void modelHostPortAndOperationComeFromTheTargetAndTheProviderDefaultsToOpenai() {
    try (io.infermark.core.protocol.OpenAiTarget target = io.infermark.core.protocol.OpenAiTarget
        .completions("http://inference.example:8123/v1", "m2").build()) {
      drive(GenAiTelemetry.builder(sdk).target(target).build());
    }
    HistogramPointData p = metric("gen_ai.client.operation.duration").getHistogramData().getPoints().iterator().next();
    assertThat(p.getAttributes().get(C.providerName())).isEqualTo("openai");
    assertThat(p.getAttributes().get(C.requestModel())).isEqualTo("m2");
    assertThat(p.getAttributes().get(C.serverAddress())).isEqualTo("inference.example");
    assertThat(p.getAttributes().get(C.serverPort())).isEqualTo(8123L);
    assertThat(p.getAttributes().get(C.operationName())).isEqualTo("text_completion");
  }

  @Test
  void defaultsToTheGlobalNoopWithoutHeaders() {
    GenAiTelemetry otel = GenAiTelemetry.builder().model("m").build();
    InferenceRequest r = otel.beforeSend(InferenceRequest.of("x", Prompt.user("hi")));
    assertThat(r.params().headers()).doesNotContainKey("traceparent");
  }

  @Test
  void lengthBucketsAndValidation() {
    assertThat(HistogramMapping.lengthBucket(10, 128, 512)).isEqualTo("<128");
    assertThat(HistogramMapping.lengthBucket(128, 128, 512)).isEqualTo("128-511");
    assertThat(HistogramMapping.lengthBucket(4096, 128, 512)).isEqualTo(">=512");
    assertThatThrownBy(() -> HistogramMapping.builder("bad name!").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad name!");
    assertThatThrownBy(() -> HistogramMapping.builder("x").buckets(1, 1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strictly ascending");
    assertThatThrownBy(() -> GenAiTelemetry.builder().server("h", 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port must be in [1, 65535], was 0");
    assertThat(HistogramMapping.e2eSeconds().apply(RequestRecord.builder().build())).isEqualTo(OptionalDouble.empty());
  }
}
