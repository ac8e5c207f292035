package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class E07OpenTelemetryBackendTest {

  private static final int REQUESTS = 12;
  private static final SimulatorConfig CONFIG = SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(5))
      .interTokenInterval(Duration.ofMillis(1)).build();

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(CONFIG);

  @Test
  void everyRequestBecomesAGenAiSpanAndFeedsTheGenAiClientHistograms(Simulator simulator) {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    InMemoryMetricReader metrics = InMemoryMetricReader.create();
    RunResult result;
    try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build()).build()) {
      result = E07OpenTelemetryBackend.run(sdk, simulator.baseUrl() + "/v1", CONFIG.model(), REQUESTS);

      assertThat(result.records()).hasSize(REQUESTS).allMatch(RequestRecord::succeeded);
      List<SpanData> exported = spans.getFinishedSpanItems();
      assertThat(exported).hasSize(REQUESTS).allSatisfy(span -> {
        assertThat(span.getName()).isEqualTo("chat " + CONFIG.model());
        assertThat(span.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(span.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
        Attributes a = span.getAttributes();
        assertThat(a.get(AttributeKey.stringKey("gen_ai.operation.name"))).isEqualTo("chat");
        assertThat(a.get(AttributeKey.stringKey("gen_ai.provider.name"))).isEqualTo("openai");
        assertThat(a.get(AttributeKey.stringKey("gen_ai.request.model"))).isEqualTo(CONFIG.model());
        assertThat(a.get(AttributeKey.stringKey("server.address"))).isEqualTo("127.0.0.1");
        assertThat(a.get(AttributeKey.longKey("server.port"))).isEqualTo((long) simulator.port());
        assertThat(a.get(AttributeKey.longKey("gen_ai.usage.output_tokens"))).isEqualTo(16L);
        assertThat(a.get(AttributeKey.longKey("gen_ai.usage.input_tokens"))).isPositive();
      });

      Map<String, MetricData> byName = metrics.collectAllMetrics().stream()
          .collect(Collectors.toMap(MetricData::getName, m -> m));
      assertThat(byName).containsKeys("gen_ai.client.operation.duration", "gen_ai.client.token.usage",
          "gen_ai.client.operation.time_to_first_chunk", "gen_ai.client.operation.time_per_output_chunk");
      assertThat(byName.get("gen_ai.client.operation.duration").getUnit()).isEqualTo("s");
      assertThat(count(byName.get("gen_ai.client.operation.duration"))).isEqualTo(REQUESTS);
      assertThat(count(byName.get("gen_ai.client.operation.time_to_first_chunk"))).isEqualTo(REQUESTS);
      HistogramPointData ttft = points(byName.get("gen_ai.client.operation.time_to_first_chunk")).iterator().next();
      assertThat(ttft.getAttributes().get(AttributeKey.stringKey("gen_ai.request.model"))).isEqualTo(CONFIG.model());
      assertThat(ttft.getAttributes().get(AttributeKey.stringKey("gen_ai.provider.name"))).isEqualTo("openai");
      // the simulator's TTFT is at least its configured 5 ms, so every value sits above 0.005 s
      assertThat(ttft.getMin()).isGreaterThanOrEqualTo(0.005);
      // one output-token point (16 per request) and one input-token point per request
      long outputTokens = points(byName.get("gen_ai.client.token.usage")).stream()
          .filter(p -> "output".equals(p.getAttributes().get(AttributeKey.stringKey("gen_ai.token.type"))))
          .mapToLong(p -> (long) p.getSum()).sum();
      assertThat(outputTokens).isEqualTo(16L * REQUESTS);
    }
  }

  private static Collection<HistogramPointData> points(MetricData m) {
    return m.getHistogramData().getPoints();
  }

  private static long count(MetricData m) {
    return points(m).stream().mapToLong(HistogramPointData::getCount).sum();
  }
}
