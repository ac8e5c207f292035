package io.infermark.metrics.otel;

import io.infermark.core.RunListener;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.pipeline.RetrievalTarget;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.DoubleGauge;
import io.opentelemetry.api.metrics.Meter;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.ToDoubleBiFunction;

/**
 * Exports seed 000 chapter 1's {@value #CONTEXT_RELEVANCE_SCORE} gauge: "context_relevance_score（Gauge，基于RAG检索
 * 结果与生成答案的BERTScore相似度实时计算）" (a gauge, the BERTScore similarity of the RAG retrieval results and the
 * generated answer, computed in real time).
 *
 * <pre>{@code
 * Target rag = RetrievalTarget.builder(generation, retriever).recordContext(true).build();
 * ContextRelevanceTelemetry relevance = ContextRelevanceTelemetry.create(openTelemetry,
 *     SemanticScorer.greedyTrigramF1()::score);          // or a BERTScore service
 * Benchmark.target(rag).prompts(prompts).load(load).captureText(true).listener(relevance).run();
 * }</pre>
 *
 * <p>Every measured request that succeeded, with its answer text ({@code captureText}) and its retrieved passages
 * (the tag {@value RetrievalTarget#CONTEXT_TAG}, which {@code RetrievalTarget.Builder.recordContext(true)} adds),
 * is scored as {@code scorer(answer, passages)}, in [0, 1], as it completes; the gauge then holds the mean score
 * of the run's answers so far (unit 1). Other requests are not scored. Only the score reaches telemetry, never
 * the texts.
 */
public final class ContextRelevanceTelemetry implements RunListener {

  /** Gauge: mean context relevance of the answers scored so far, 1. */
  public static final String CONTEXT_RELEVANCE_SCORE = "context_relevance_score";

  private final DoubleGauge gauge;
  private final ToDoubleBiFunction<String, String> scorer;
  private double sum;
  private int scored;

  private ContextRelevanceTelemetry(OpenTelemetry openTelemetry, ToDoubleBiFunction<String, String> scorer) {
    Meter meter = openTelemetry.getMeter(GenAiTelemetry.SCOPE);
    this.scorer = scorer;
    this.gauge = meter.gaugeBuilder(CONTEXT_RELEVANCE_SCORE).setUnit("1")
        .setDescription("Mean similarity of the generated answers to their retrieved passages, so far.").build();
  }

  /** Exports to {@link GlobalOpenTelemetry}, answers scored by {@code scorer(answer, passages)}. */
  public static ContextRelevanceTelemetry create(ToDoubleBiFunction<String, String> scorer) {
    return create(GlobalOpenTelemetry.get(), scorer);
  }

  /** Exports to {@code openTelemetry}, answers scored by {@code scorer(answer, passages)} in [0, 1]. */
  public static ContextRelevanceTelemetry create(OpenTelemetry openTelemetry,
      ToDoubleBiFunction<String, String> scorer) {
    return new ContextRelevanceTelemetry(Objects.requireNonNull(openTelemetry, "openTelemetry"),
        Objects.requireNonNull(scorer, "scorer"));
  }

  /**
   * The context relevance of one record: {@code scorer(answer, passages)}, or empty when the record was not
   * measured, failed, or lacks its answer text or its {@value RetrievalTarget#CONTEXT_TAG} tag.
   *
   * @throws IllegalArgumentException if the scorer returns a value outside [0, 1]
   */
  public static OptionalDouble score(RequestRecord record, ToDoubleBiFunction<String, String> scorer) {
    String context = record.tags().get(RetrievalTarget.CONTEXT_TAG);
    if (!record.measured() || !record.succeeded() || context == null || record.text().isEmpty()) {
      return OptionalDouble.empty();
    }
    double s = scorer.applyAsDouble(record.text().get(), context);
    if (!(s >= 0 && s <= 1)) {
      throw new IllegalArgumentException("a context relevance score must be in [0, 1], the scorer gave " + s
          + " for request " + record.index());
    }
    return OptionalDouble.of(s);
  }

  @Override
  public void onRecord(RequestRecord record) {
    OptionalDouble s = score(record, scorer);
    if (s.isPresent()) {
      double mean;
      synchronized (this) {
        sum += s.getAsDouble();
        scored++;
        mean = sum / scored;
      }
      gauge.set(mean);
    }
  }

  /** The mean score so far, or empty before the first scored answer. */
  public synchronized OptionalDouble meanScore() {
    return scored == 0 ? OptionalDouble.empty() : OptionalDouble.of(sum / scored);
  }

  /** How many answers were scored. */
  public synchronized int scored() {
    return scored;
  }

  @Override
  public synchronized String toString() {
    return String.format(Locale.ROOT, "ContextRelevanceTelemetry[%s, %d scored%s]", CONTEXT_RELEVANCE_SCORE, scored,
        scored == 0 ? "" : String.format(Locale.ROOT, ", mean %.4f", sum / scored));
  }
}
