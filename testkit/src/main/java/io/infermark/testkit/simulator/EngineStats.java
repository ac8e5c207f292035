package io.infermark.testkit.simulator;

import java.util.Locale;

/**
 * Counters and gauges of an engine, as its {@code /metrics} report them: a snapshot, immutable.
 *
 * @param steps engine steps run
 * @param busyNanos time spent in steps
 * @param running sequences running now
 * @param waiting requests waiting for admission now (including preempted ones)
 * @param peakRunning the most sequences that ran at once
 * @param peakWaiting the most requests that waited at once
 * @param kvBlocksUsed KV blocks referenced by running sequences now
 * @param kvBlocksTotal KV-cache capacity in blocks
 * @param peakKvBlocksUsed the most blocks referenced at once
 * @param preemptions sequences preempted so far
 * @param prefixQueryTokens prompt tokens looked up in the prefix cache at admission
 * @param prefixHitTokens of those, tokens found (and not prefilled)
 * @param promptTokens prompt tokens of requests whose prefill finished
 * @param generationTokens tokens generated
 * @param inSystemNanoIntegral the integral over time of (running + waiting), in request·nanoseconds:
 *     divided by elapsed time it is the mean number of requests in the system (Little's L)
 * @param kvBlocksSwapped blocks of preempted sequences held in host memory now (swap preemption only)
 * @param swapOutBlocks blocks copied to host memory at preemptions so far
 * @param swapInBlocks blocks copied back at readmissions so far
 * @param kvFragmentation internal fragmentation of the running sequences' KV at the last step, 0 to
 *     1: the share of their blocks' slots that hold no token
 */
public record EngineStats(long steps, long busyNanos, int running, int waiting, int peakRunning, int peakWaiting,
    int kvBlocksUsed, int kvBlocksTotal, int peakKvBlocksUsed, long preemptions, long prefixQueryTokens,
    long prefixHitTokens, long promptTokens, long generationTokens, double inSystemNanoIntegral,
    int kvBlocksSwapped, long swapOutBlocks, long swapInBlocks, double kvFragmentation) {

  /** An engine that has done nothing, with {@code kvBlocksTotal} blocks. */
  static EngineStats empty(int kvBlocksTotal) {
    return new EngineStats(0, 0, 0, 0, 0, 0, 0, kvBlocksTotal, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  /** Fraction of the KV cache referenced now, 0 to 1 (vLLM's {@code kv_cache_usage_perc}). */
  public double kvCacheUsage() {
    return kvBlocksTotal == 0 ? 0 : (double) kvBlocksUsed / kvBlocksTotal;
  }

  /** Prefix-cache hit rate over all lookups, by tokens; 0 before any lookup. */
  public double prefixCacheHitRate() {
    return prefixQueryTokens == 0 ? 0 : (double) prefixHitTokens / prefixQueryTokens;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "EngineStats{steps=%d, running=%d, waiting=%d, kv=%.1f%%, preemptions=%d, "
        + "prefixHits=%.1f%%, generated=%d}", steps, running, waiting, 100 * kvCacheUsage(), preemptions,
        100 * prefixCacheHitRate(), generationTokens);
  }
}
