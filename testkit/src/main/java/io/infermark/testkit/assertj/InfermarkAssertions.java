package io.infermark.testkit.assertj;

import io.infermark.core.RunResult;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.RunSummary;

/**
 * AssertJ entry points for infermark results: statically import {@code assertThat} from here
 * (next to AssertJ's own) and write
 * <pre>{@code
 * assertThat(run).hasNoFailures();
 * assertThat(run).ttft().p99().isLessThan(Duration.ofMillis(300));
 * assertThat(run).errorRate().isLessThan(0.01);
 * assertThat(run).outputTokensPerSecond().isGreaterThan(1_000);
 * }</pre>
 * A failed latency assertion shows the whole percentile row of the metric, so one failure tells
 * the shape of the distribution, not just one number.
 */
public final class InfermarkAssertions {

  private InfermarkAssertions() {}

  /** Assertions over a run, summarised with linear (numpy-compatible) percentiles. */
  public static RunAssert assertThat(RunResult run) {
    return new RunAssert(RunSummary.of(run));
  }

  /** Assertions over a run's summary. */
  public static RunAssert assertThat(RunSummary summary) {
    return new RunAssert(summary);
  }

  /** Assertions over one distribution of millisecond values, named {@code name} in messages. */
  public static DistributionAssert assertThat(Distribution distribution, String name) {
    return new DistributionAssert(distribution, name);
  }
}
