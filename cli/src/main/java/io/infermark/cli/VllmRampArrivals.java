package io.infermark.cli;

import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.Randoms;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.SplittableRandom;

/**
 * vLLM's ramp-up ({@code --ramp-up-strategy}): request {@code i} of {@code n} arrives after a gap drawn at the rate
 * {@code start + (end - start) * i / (n - 1)} (linear) or {@code start * (end / start)^(i / (n - 1))}
 * (exponential): exponential gaps, or gamma with shape {@code burstiness} and mean {@code 1 / rate}. As in vLLM the
 * ramp runs over the requests, not over time, the first request waits its own gap, and the schedule is not
 * rescaled.
 */
final class VllmRampArrivals implements ArrivalProcess {

  private final String strategy;
  private final double start;
  private final double end;
  private final int requests;
  private final double burstiness;

  VllmRampArrivals(String strategy, double start, double end, int requests, double burstiness) {
    if (!strategy.equals("linear") && !strategy.equals("exponential")) {
      throw new IllegalArgumentException("ramp-up strategy must be linear or exponential, was " + strategy);
    }
    if (!(start > 0) || end < start || requests < 1 || !(burstiness > 0)) {
      throw new IllegalArgumentException("a ramp needs 0 < start <= end, requests >= 1 and burstiness > 0");
    }
    this.strategy = strategy;
    this.start = start;
    this.end = end;
    this.requests = requests;
    this.burstiness = burstiness;
  }

  /** The rate of request {@code i} (requests per second). */
  double rate(int i) {
    double progress = (double) i / Math.max(requests - 1, 1);
    return strategy.equals("linear") ? start + (end - start) * progress : start * Math.pow(end / start, progress);
  }

  @Override
  public long[] schedule(int maxCount, long limitNanos, long seed) {
    int n = Math.min(maxCount, requests);
    SplittableRandom random = new SplittableRandom(seed);
    long[] at = new long[n];
    double t = 0;
    int count = 0;
    for (int i = 0; i < n; i++) {
      t += gap(random, rate(i));
      long nanos = Math.round(t * 1e9);
      if (nanos >= limitNanos) {
        break;
      }
      at[count++] = nanos;
    }
    return count == n ? at : java.util.Arrays.copyOf(at, count);
  }

  /** A gamma(shape burstiness, mean 1/rate) gap in seconds; exponential when burstiness is 1. */
  private double gap(SplittableRandom random, double rate) {
    double theta = 1.0 / (rate * burstiness);
    return Randoms.gamma(random, burstiness) * theta;
  }

  @Override
  public OptionalDouble nominalRate() {
    return OptionalDouble.empty();
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "vllm-ramp-up(%s, %s -> %s req/s over %d requests%s)", strategy, start, end,
        requests, burstiness == 1 ? "" : ", burstiness " + burstiness);
  }
}
