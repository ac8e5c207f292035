package io.infermark.metrics;

/**
 * How a run's scheduled requests divide up: warmup and cooldown (excluded from everything), measured, and of the
 * measured ones how many succeeded or failed. Only successful measured requests enter latency
 * statistics; {@link #succeededWithoutTokens()} of them had no token-bearing chunk and so no TTFT
 * or E2E.
 *
 * @param scheduled every scheduled request: one record each, warmup included
 * @param warmupExcluded warmup requests, excluded from all statistics
 * @param cooldownExcluded cooldown requests (sent at the end of the run), excluded from all statistics
 * @param measured scheduled minus warmup and cooldown
 * @param succeeded measured requests that completed without failure
 * @param failed measured requests that failed, including those never sent ({@code NOT_SENT})
 * @param succeededWithoutTokens successful measured requests without any token-bearing chunk
 */
public record RequestCounts(int scheduled, int warmupExcluded, int cooldownExcluded, int measured, int succeeded, int failed,
    int succeededWithoutTokens) {

  /** Checks that the counts add up. */
  public RequestCounts {
    if (scheduled < 0 || warmupExcluded < 0 || cooldownExcluded < 0 || measured < 0 || succeeded < 0 || failed < 0
        || succeededWithoutTokens < 0) {
      throw new IllegalArgumentException("request counts must be >= 0: " + describe(scheduled, warmupExcluded,
          cooldownExcluded, measured, succeeded, failed, succeededWithoutTokens));
    }
    if (warmupExcluded + cooldownExcluded + measured != scheduled || succeeded + failed != measured
        || succeededWithoutTokens > succeeded) {
      throw new IllegalArgumentException("request counts do not add up: " + describe(scheduled, warmupExcluded,
          cooldownExcluded, measured, succeeded, failed, succeededWithoutTokens));
    }
  }

  private static String describe(int scheduled, int warmup, int cooldown, int measured, int succeeded, int failed,
      int withoutTokens) {
    return scheduled + " scheduled = " + warmup + " warmup + " + cooldown + " cooldown + " + measured + " measured; measured = " + succeeded
        + " succeeded + " + failed + " failed; " + withoutTokens + " succeeded without tokens";
  }

  @Override
  public String toString() {
    return "RequestCounts[" + scheduled + " scheduled, " + warmupExcluded + " warmup excluded, "
        + (cooldownExcluded > 0 ? cooldownExcluded + " cooldown excluded, " : "") + measured
        + " measured, " + succeeded + " succeeded (" + succeededWithoutTokens + " without tokens), " + failed
        + " failed]";
  }
}
