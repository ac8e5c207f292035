package io.infermark.metrics.slo;

import io.infermark.metrics.LatencyMetric;

/**
 * Objectives people already use, as ready {@link SloSet}s. Combine with {@link SloSet#and(SloSet)},
 * e.g. {@code SloPresets.chat().and(SloSet.of("json", Slo.validity("valid JSON", r -> ...)))}.
 */
public final class SloPresets {

  private SloPresets() {}

  /** Interactive chat: TTFT P99 ≤ 200 ms and ITL P99 ≤ 50 ms. */
  public static SloSet chat() {
    return SloSet.of("chat", Slo.latency(LatencyMetric.TTFT, 0.99, 200), Slo.latency(LatencyMetric.ITL, 0.99, 50));
  }

  /** Retrieval-augmented answers: E2E P95 ≤ 1200 ms. */
  public static SloSet rag() {
    return SloSet.of("rag", Slo.latency(LatencyMetric.E2E, 0.95, 1200));
  }

  /** Agent tool chains: at least 99.2 % of requests complete, since one failed step breaks the chain. */
  public static SloSet agentToolChains() {
    return SloSet.of("agent tool chains", Slo.completionRate(0.992));
  }

  /**
   * Pure inference throughput: at least 1800 output tokens per second per GPU.
   *
   * @param gpus how many GPUs served the run
   * @throws IllegalArgumentException if gpus &lt; 1
   */
  public static SloSet inferenceThroughput(int gpus) {
    return SloSet.of("inference throughput", Slo.outputTokensPerSecondPerGpu(1800, gpus));
  }
}
