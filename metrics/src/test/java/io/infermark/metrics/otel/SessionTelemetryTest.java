package io.infermark.metrics.otel;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.TestRuns;
import io.infermark.metrics.session.FactJudge;
import io.infermark.metrics.session.SessionSummaryFixtures;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SessionTelemetryTest {

  private static MetricData metric(Collection<MetricData> all, String name) {
    return all.stream().filter(m -> m.getName().equals(name)).findFirst().orElseThrow(() ->
        new AssertionError("no metric " + name + " in " + all.stream().map(MetricData::getName).toList()));
  }

  @Test
  void agentTurnLatencyCarriesToolCallDepthAndRetryCountOnEveryPoint() {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build()) {
      SessionTelemetry telemetry = SessionTelemetry.create(sdk, FactJudge.containsFact());
      List<RequestRecord> records = SessionSummaryFixtures.records();
      records.forEach(telemetry::onRecord);
      telemetry.onRunFinished(TestRuns.run(records));

      Collection<MetricData> all = reader.collectAllMetrics();
      MetricData turns = metric(all, SessionTelemetry.AGENT_TURN_LATENCY);
      assertThat(turns.getUnit()).isEqualTo("ms");
      Map<String, HistogramPointData> points = turns.getHistogramData().getPoints().stream().collect(Collectors.toMap(
          p -> p.getAttributes().get(AttributeKey.longKey("tool_call_depth")) + "/"
              + p.getAttributes().get(AttributeKey.longKey("retry_count")), p -> p));
      assertThat(points).containsOnlyKeys("0/0", "1/0", "1/1");
      assertThat(points.values()).allSatisfy(p -> assertThat(p.getAttributes().size()).isEqualTo(2));
      assertThat(points.get("1/0").getSum()).isEqualTo(250.0);
      assertThat(points.get("1/1").getSum()).isEqualTo(200.0);
      assertThat(points.get("0/0").getCount()).isEqualTo(1);

      DoublePointData completion = metric(all, SessionTelemetry.TOOL_CHAIN_COMPLETION_RATE).getDoubleGaugeData()
          .getPoints().iterator().next();
      assertThat(completion.getValue()).isEqualTo(0.5);
      assertThat(metric(all, SessionTelemetry.SESSION_DURATION).getHistogramData().getPoints().iterator().next()
          .getSum()).isEqualTo(500.0);
      assertThat(metric(all, SessionTelemetry.RETRY_CONVERGENCE_CYCLES).getHistogramData().getPoints().iterator()
          .next().getSum()).isEqualTo(2.0);
      Map<String, Double> time = metric(all, SessionTelemetry.SESSION_TIME).getDoubleGaugeData().getPoints().stream()
          .collect(Collectors.toMap(p -> p.getAttributes().get(AttributeKey.stringKey("component")),
              DoublePointData::getValue));
      assertThat(time).containsExactlyInAnyOrderEntriesOf(Map.of("model", 360.0, "tools", 90.0, "other", 80.0));
      assertThat(metric(all, SessionTelemetry.MEMORY_DECAY_RATE).getDoubleGaugeData().getPoints().iterator().next()
          .getValue()).isEqualTo(0.5);
    }
  }

  @Test
  void runWithoutSessionsExportsNothing() {
    InMemoryMetricReader reader = InMemoryMetricReader.create();
    try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
        .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build()) {
      SessionTelemetry telemetry = SessionTelemetry.create(sdk, FactJudge.containsFact());
      TestRuns.mixedRun().records().forEach(telemetry::onRecord);
      telemetry.onRunFinished(TestRuns.mixedRun());
      assertThat(reader.collectAllMetrics()).isEmpty();
    }
  }
}
