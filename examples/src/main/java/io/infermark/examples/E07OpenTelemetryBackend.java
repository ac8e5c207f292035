package io.infermark.examples;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.workload.Mix;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.otel.GenAiTelemetry;
import io.infermark.metrics.report.ConsoleTable;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;

/**
 * Example 07, OpenTelemetry into a real backend: a run whose every request becomes a GenAI CLIENT span
 * ({@code chat <model>}) and whose TTFT, chunk gaps, durations and token counts become the GenAI
 * client histograms ({@code gen_ai.client.operation.time_to_first_chunk}, ...), exported by whatever
 * OpenTelemetry SDK the application installed: to an OpenTelemetry Collector, Jaeger or Tempo (traces)
 * and Prometheus or Mimir (metrics) over OTLP. The request's {@code traceparent} header makes the
 * server's spans (vLLM's {@code --otlp-traces-endpoint}) children of infermark's.
 *
 * <p>infermark uses only the OpenTelemetry API. Run it under the OpenTelemetry Java agent, which
 * installs an SDK with the OTLP exporter, configured by {@code OTEL_*} variables (docs/opentelemetry-backend.md):
 *
 * <pre>
 * OTEL_SERVICE_NAME=infermark OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4317 \
 *   java -javaagent:opentelemetry-javaagent.jar -cp examples/target/infermark-quickstart.jar \
 *   io.infermark.examples.E07OpenTelemetryBackend
 * </pre>
 *
 * <p>Without an SDK, {@link GlobalOpenTelemetry} is a no-op and the run just prints its summary.
 */
public final class E07OpenTelemetryBackend {

  private E07OpenTelemetryBackend() {}

  /** Runs against the embedded simulator and exports to the global OpenTelemetry (the agent's SDK). */
  public static void main(String[] args) {
    SimulatorConfig config = SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(30))
        .interTokenInterval(Duration.ofMillis(5)).build();
    try (Simulator simulator = Simulator.start(config)) {
      RunResult result = run(GlobalOpenTelemetry.get(), simulator.baseUrl() + "/v1", config.model(), 100);
      System.out.println(ConsoleTable.render(RunSummary.of(result)));
    }
  }

  /**
   * Sends {@code requests} chat requests (16 output tokens each, 8 in flight) to an OpenAI-compatible
   * {@code /v1} base URL and exports them to {@code openTelemetry}: the model, server address and
   * port come from the target, the provider is {@code openai} (name yours with
   * {@code GenAiTelemetry.Builder.provider}).
   */
  public static RunResult run(OpenTelemetry openTelemetry, String baseUrl, String model, int requests) {
    try (OpenAiTarget target = OpenAiTarget.chat(baseUrl, model).build()) {
      GenAiTelemetry telemetry = GenAiTelemetry.builder(openTelemetry).target(target).build();
      return Benchmark.target(target)
          .workload(Mix.singleTurn())
          .params(GenerationParams.builder().maxTokens(16).ignoreEos(true).build())
          .load(LoadProfile.concurrency(8).requests(requests))
          .listener(telemetry)
          .run();
    }
  }
}
