package io.infermark.metrics.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.pipeline.RetrievalTarget;
import io.infermark.metrics.session.SessionOutcomes;
import io.infermark.metrics.session.SessionSummaryFixtures;
import io.infermark.metrics.session.FactJudge;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.ToDoubleBiFunction;
import org.junit.jupiter.api.Test;

/** Seed 000's context_relevance_score and seed 002 §2.5's session outcomes as OpenTelemetry gauges. */
class ContextRelevanceTelemetryTest {

  /** Share of the answer's words found in the passages: a scorer whose answers are countable by hand. */
  private static final ToDoubleBiFunction<String, String> WORDS_IN_CONTEXT = (answer, context) -> {
    Set<String> ctx = new HashSet<>(Arrays.asList(context.split("\\s+")));
    String[] words = answer.split("\\s+");
    return Arrays.stream(words).filter(ctx::contains).count() / (double) words.length;
  };

  private static long index;

  private static RequestRecord answer(String text, String context) {
    RequestRecord.Builder b = RequestRecord.builder().index(index++).intendedNanos(0).sendNanos(0).httpStatus(200)
        .endOffsetNanos(1_000_000).text(Optional.of(text));
    if (context != null) {
      b.tags(Map.of(RetrievalTarget.CONTEXT_TAG, context));
    }
    return b.build();
  }

  private static DoublePointData gauge(InMemoryMetricReader reader, String name) {
    MetricData m = reader.collectAllMetrics().stream().filter(d -> d.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no metric " + name));
    assertThat(m.getUnit()).isEqualTo("1");
    return m.getDoubleGaugeData().getPoints().iterator().next();
  }

  @Test
  void theGaugeHoldsTheMeanScoreOfTheAnswersScoredSoFar() {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build()) {
      ContextRelevanceTelemetry relevance = ContextRelevanceTelemetry.create(sdk, WORDS_IN_CONTEXT);
      // 4 of 4 words in the passages, then 1 of 4: 1.0, then (1.0 + 0.25) / 2 = 0.625.
      relevance.onRecord(answer("paris is in france", "paris is the capital\nfrance is in europe"));
      assertThat(gauge(reader, ContextRelevanceTelemetry.CONTEXT_RELEVANCE_SCORE).getValue()).isEqualTo(1.0);
      relevance.onRecord(answer("the moon is cheese", "paris\nrome"));
      relevance.onRecord(answer("the moon is cheese", "the moon is cheese"));
      assertThat(relevance.scored()).isEqualTo(3);
      // 1.0, 0.0 ("the moon is cheese" against "paris rome"), 1.0: mean 2/3.
      assertThat(relevance.meanScore().getAsDouble()).isEqualTo(2.0 / 3);
      assertThat(gauge(reader, ContextRelevanceTelemetry.CONTEXT_RELEVANCE_SCORE).getValue()).isEqualTo(2.0 / 3);
      // Not scored: no passages recorded, a failed request, a warmup request.
      relevance.onRecord(answer("paris", null));
      relevance.onRecord(answer("paris", "paris").toBuilder()
          .httpStatus(503).failure(Optional.of(Failure.httpStatus(503, "overloaded"))).build());
      relevance.onRecord(answer("paris", "paris").toBuilder().warmup(true).build());
      assertThat(relevance.scored()).isEqualTo(3);
      assertThat(relevance).hasToString("ContextRelevanceTelemetry[context_relevance_score, 3 scored, mean 0.6667]");
    }
  }

  @Test
  void aScoreOutsideZeroToOneIsRefused() {
    assertThatThrownBy(() -> ContextRelevanceTelemetry.score(answer("a", "a"), (x, y) -> 1.5))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be in [0, 1], the scorer gave 1.5");
  }

  @Test
  void sessionOutcomesAreGaugesLabelledWithTheirLimits() {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build()) {
      SessionTelemetry telemetry = SessionTelemetry.create(sdk, FactJudge.containsFact());
      List<RequestRecord> records = SessionSummaryFixtures.records();
      telemetry.record(SessionOutcomes.of(records, Duration.ofMillis(200), Duration.ofMillis(300)));
      // SessionOutcomesTest: first screen 1 of 3, interrupted 1 of 2.
      DoublePointData screen = gauge(reader, SessionTelemetry.FIRST_SCREEN_COMPLETION_RATE);
      assertThat(screen.getValue()).isEqualTo(1.0 / 3);
      assertThat(screen.getAttributes().get(AttributeKey.longKey("first_screen_ms"))).isEqualTo(200L);
      DoublePointData interrupted = gauge(reader, SessionTelemetry.SESSION_INTERRUPTION_RATE);
      assertThat(interrupted.getValue()).isEqualTo(0.5);
      assertThat(interrupted.getAttributes().get(AttributeKey.longKey("patience_ms"))).isEqualTo(300L);
    }
  }
}
