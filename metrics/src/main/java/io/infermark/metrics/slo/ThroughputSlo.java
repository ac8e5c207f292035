package io.infermark.metrics.slo;

/**
 * A run-level objective: the run's output token throughput (sum of N over successful measured
 * requests per second of the measurement window, see
 * {@link io.infermark.metrics.RunSummary#outputTokenThroughputTps()}) divided by {@code gpus} must be
 * at least {@code minTokensPerSecondPerGpu}.
 *
 * @param minTokensPerSecondPerGpu the least acceptable output tokens per second per GPU
 * @param gpus how many GPUs served the run, supplied by the caller (infermark cannot see them)
 */
public record ThroughputSlo(double minTokensPerSecondPerGpu, int gpus) implements Slo {

  /** Validates. */
  public ThroughputSlo {
    if (!(minTokensPerSecondPerGpu >= 0) || Double.isInfinite(minTokensPerSecondPerGpu)) {
      throw new IllegalArgumentException("minTokensPerSecondPerGpu must be finite and >= 0, was "
          + minTokensPerSecondPerGpu);
    }
    if (gpus < 1) {
      throw new IllegalArgumentException("gpus must be >= 1, was " + gpus);
    }
  }

  @Override
  public String name() {
    return "output tokens/s per GPU >= " + LatencySlo.trim(minTokensPerSecondPerGpu) + " (" + gpus + " GPU"
        + (gpus == 1 ? "" : "s") + ")";
  }

  @Override
  public boolean perRequest() {
    return false;
  }

  @Override
  public String toString() {
    return "ThroughputSlo[" + name() + "]";
  }
}
