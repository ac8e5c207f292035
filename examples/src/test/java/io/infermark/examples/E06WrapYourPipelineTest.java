package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.attribution.phase.LatencyPhase;
import io.infermark.attribution.phase.RequestPhases;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.pipeline.RetrievalTarget;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.otel.GenAiTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class E06WrapYourPipelineTest {

  /** Per question (by position): the ids the keyword index returns and recall@2, worked out by hand. */
  static final Map<String, String> RETRIEVED = Map.of("0", "d1,d2", "1", "d3", "2", "d4", "3", "d6,d5", "4", "");
  static final Map<String, Double> RECALL = Map.of("0", 1.0, "1", 1.0, "2", 1.0, "3", 1.0, "4", 0.0);

  @Test
  void thePipelineIsOneTargetWhoseRetrievalStageIsAPhaseAndASpanEvent() {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    E06WrapYourPipeline.Result result;
    List<SpanData> spans;
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
        .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build()) {
      result = E06WrapYourPipeline.run(new PrintStream(console, true, StandardCharsets.UTF_8), sdk);
      spans = exporter.getFinishedSpanItems(); // before close: shutting the exporter down empties it
    }

    List<RequestRecord> measured = result.run().measured();
    assertThat(measured).hasSize(E06WrapYourPipeline.REQUESTS).allMatch(RequestRecord::succeeded);
    for (RequestRecord r : measured) {
      String q = r.tags().get(E06WrapYourPipeline.QUESTION_TAG);
      assertThat(r.tags().get(RetrievalTarget.RETRIEVED_TAG)).as("question %s", q).isEqualTo(RETRIEVED.get(q));
      assertThat(RetrievalTarget.recallAtK(r)).as("question %s", q).hasValue(RECALL.get(q));
      assertThat(r.tags().get(E06WrapYourPipeline.TIER_TAG)).isEqualTo(q.equals("3") ? "archive" : "hot");
      RequestPhases p = RequestPhases.of(r, LatencyBasis.SERVICE_TIME_WITH_RETRIEVAL);
      // retrieval starts at the send: its phase is the stage's end offset, and generation comes after it
      assertThat(r.phases().offsetNanos(Phase.RETRIEVAL_START)).hasValue(0);
      assertThat(p.nanos(LatencyPhase.RETRIEVAL)).isEqualTo(r.phases().offsetNanos(Phase.RETRIEVAL_END).getAsLong());
      assertThat(r.chunks().firstTokenOffsetNanos().getAsLong()).isGreaterThan(p.nanos(LatencyPhase.RETRIEVAL));
      if (q.equals("3")) { // the cold archive tier parks at least ARCHIVE_MS
        assertThat(p.nanos(LatencyPhase.RETRIEVAL)).isGreaterThanOrEqualTo(E06WrapYourPipeline.ARCHIVE_MS * 1_000_000L);
      }
    }
    assertThat(measured.stream().filter(r -> r.tags().get(E06WrapYourPipeline.QUESTION_TAG).equals("3"))).hasSize(8);
    // the phases add up to each request's E2E exactly
    assertThat(result.phases().totals().sortedValuesMillis())
        .containsExactly(RunSummary.of(result.run()).distribution(LatencyMetric.E2E).sortedValuesMillis());

    // one span per request sent (warmup too), with the stage as two ordered events inside the span
    assertThat(spans).hasSize(E06WrapYourPipeline.REQUESTS + E06WrapYourPipeline.WARMUP);
    for (SpanData s : spans) {
      assertThat(s.getEvents()).extracting(EventData::getName)
          .containsExactly(GenAiTelemetry.RETRIEVAL_START_EVENT, GenAiTelemetry.RETRIEVAL_END_EVENT);
      long start = s.getEvents().get(0).getEpochNanos();
      long end = s.getEvents().get(1).getEpochNanos();
      assertThat(start).isBetween(s.getStartEpochNanos(), end);
      assertThat(end).isLessThanOrEqualTo(s.getEndEpochNanos());
      assertThat(s.getAttributes().get(AttributeKey.doubleKey(GenAiTelemetry.RETRIEVAL_DURATION)))
          .isCloseTo((end - start) / 1e9, within(1e-9));
    }
    double[] spanStages = spans.stream()
        .mapToDouble(s -> s.getAttributes().get(AttributeKey.doubleKey(GenAiTelemetry.RETRIEVAL_DURATION))).sorted()
        .toArray();
    double[] recordStages = result.run().records().stream().mapToDouble(r -> r.phases().retrievalNanos().getAsLong() / 1e9)
        .sorted().toArray();
    assertThat(spanStages).containsExactly(recordStages, within(1e-12));

    assertThat(console.toString(StandardCharsets.UTF_8)).contains("Recall@2 per question", "mean recall@2 over 40",
        "retrieval", "Slowest request");
  }
}
