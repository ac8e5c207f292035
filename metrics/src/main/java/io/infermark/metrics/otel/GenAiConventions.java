package io.infermark.metrics.otel;

import io.opentelemetry.api.common.AttributeKey;
import java.util.List;

/**
 * The names, units and bucket advice of the OpenTelemetry GenAI semantic conventions that
 * {@link GenAiTelemetry} emits, in one place: the conventions are still in development, and when a
 * later version renames something, a new constant here switches every name at once
 * ({@code GenAiTelemetry.builder().conventions(...)}).
 *
 * <p>{@link #V1_41} follows the GenAI client metrics and spans of the OpenTelemetry semantic
 * conventions 1.41, the first release with the two client chunk metrics
 * (<a href="https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/">gen-ai-metrics</a>,
 * <a href="https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/">gen-ai-spans</a>):
 * <ul>
 *   <li>{@code gen_ai.client.operation.duration}, unit {@code s}, buckets
 *       [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
 *   <li>{@code gen_ai.client.token.usage}, unit {@code {token}}, buckets
 *       [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864],
 *       with {@code gen_ai.token.type} = {@code input} or {@code output};
 *   <li>{@code gen_ai.client.operation.time_to_first_chunk} and
 *       {@code gen_ai.client.operation.time_per_output_chunk}, unit {@code s}, each with the
 *       operation-duration buckets above, as 1.41 advises for both (the server TTFT/TPOT
 *       advice, finer below 0.1 s, belongs to the {@code gen_ai.server.*} metrics).
 * </ul>
 * Every metric carries {@code gen_ai.provider.name} and {@code gen_ai.operation.name} (both
 * Required in 1.41), {@code gen_ai.request.model}, {@code server.address} and {@code server.port}.
 */
public enum GenAiConventions {

  /** The GenAI conventions with the client chunk metrics (semantic conventions 1.41, development status). */
  V1_41;

  /** The conventions {@link GenAiTelemetry} uses unless told otherwise. */
  public static GenAiConventions latest() {
    return V1_41;
  }

  /** Name of the operation-duration histogram. */
  public String operationDuration() {
    return "gen_ai.client.operation.duration";
  }

  /** Name of the token-usage histogram. */
  public String tokenUsage() {
    return "gen_ai.client.token.usage";
  }

  /** Name of the time-to-first-chunk histogram. */
  public String timeToFirstChunk() {
    return "gen_ai.client.operation.time_to_first_chunk";
  }

  /** Name of the time-per-output-chunk histogram. */
  public String timePerOutputChunk() {
    return "gen_ai.client.operation.time_per_output_chunk";
  }

  /** Unit of the duration histograms. */
  public String secondsUnit() {
    return "s";
  }

  /** Unit of the token histogram. */
  public String tokenUnit() {
    return "{token}";
  }

  /** Bucket advice of {@link #operationDuration()}, in seconds. */
  public List<Double> operationDurationBuckets() {
    return List.of(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92);
  }

  /** Bucket advice of {@link #tokenUsage()}. */
  public List<Long> tokenUsageBuckets() {
    return List.of(1L, 4L, 16L, 64L, 256L, 1024L, 4096L, 16384L, 65536L, 262144L, 1048576L, 4194304L, 16777216L,
        67108864L);
  }

  /** Bucket advice of {@link #timeToFirstChunk()}, in seconds. */
  public List<Double> timeToFirstChunkBuckets() {
    return operationDurationBuckets();
  }

  /** Bucket advice of {@link #timePerOutputChunk()}, in seconds. */
  public List<Double> timePerOutputChunkBuckets() {
    return operationDurationBuckets();
  }

  /** {@code gen_ai.operation.name}: {@code chat}, {@code text_completion}, ... */
  public AttributeKey<String> operationName() {
    return AttributeKey.stringKey("gen_ai.operation.name");
  }

  /** {@code gen_ai.provider.name}: {@code openai}, {@code anthropic}, ... */
  public AttributeKey<String> providerName() {
    return AttributeKey.stringKey("gen_ai.provider.name");
  }

  /** {@code gen_ai.request.model}. */
  public AttributeKey<String> requestModel() {
    return AttributeKey.stringKey("gen_ai.request.model");
  }

  /** {@code server.address}. */
  public AttributeKey<String> serverAddress() {
    return AttributeKey.stringKey("server.address");
  }

  /** {@code server.port}. */
  public AttributeKey<Long> serverPort() {
    return AttributeKey.longKey("server.port");
  }

  /** {@code error.type}: set only when the operation failed. */
  public AttributeKey<String> errorType() {
    return AttributeKey.stringKey("error.type");
  }

  /** {@code gen_ai.token.type}: {@code input} or {@code output}. */
  public AttributeKey<String> tokenType() {
    return AttributeKey.stringKey("gen_ai.token.type");
  }

  /** Span attribute {@code gen_ai.usage.input_tokens}. */
  public AttributeKey<Long> usageInputTokens() {
    return AttributeKey.longKey("gen_ai.usage.input_tokens");
  }

  /** Span attribute {@code gen_ai.usage.output_tokens}. */
  public AttributeKey<Long> usageOutputTokens() {
    return AttributeKey.longKey("gen_ai.usage.output_tokens");
  }

  /** Span attribute {@code gen_ai.response.time_to_first_chunk}, in seconds. */
  public AttributeKey<Double> responseTimeToFirstChunk() {
    return AttributeKey.doubleKey("gen_ai.response.time_to_first_chunk");
  }

  /** Span attribute {@code gen_ai.response.finish_reasons}. */
  public AttributeKey<List<String>> responseFinishReasons() {
    return AttributeKey.stringArrayKey("gen_ai.response.finish_reasons");
  }

  /** The span name: {@code {gen_ai.operation.name} {gen_ai.request.model}}. */
  public String spanName(String operation, String model) {
    return model.isEmpty() ? operation : operation + " " + model;
  }
}
