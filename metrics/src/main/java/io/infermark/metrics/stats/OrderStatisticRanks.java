package io.infermark.metrics.stats;

import java.util.Locale;
import java.util.Optional;
import org.apache.commons.statistics.distribution.BinomialDistribution;

/**
 * The ranks of the order statistics that bound a distribution-free confidence interval for a
 * quantile: with {@code n} independent values from any continuous distribution, the true
 * p-quantile ξ lies in {@code [X(lower), X(upper)]} (1-based ranks of the ascending sample) with
 * probability at least the requested confidence.
 *
 * <p>Why it works: the number of values below ξ is Binomial(n, p), so
 * {@code P(X(l) ≤ ξ < X(u)) = B(u−1) − B(l−1)} with B the binomial CDF. The interval is
 * equal-tailed: {@code l − 1} is the largest count with {@code B(l−1) ≤ α/2} and {@code u − 1} the
 * smallest with {@code B(u−1) ≥ 1 − α/2}, α = 1 − confidence, so each side misses with probability
 * at most α/2 and {@link #coverage()} ≥ confidence. (Conover, <i>Practical Nonparametric
 * Statistics</i>, §3.2; for n = 100, p = 0.5, 95 % it gives ranks 40 and 61, as his table does.)
 * The binomial CDF is Apache Commons Statistics'.
 *
 * <p>The interval cannot be formed when a side would need a rank outside {@code [1, n]}: P99 at
 * 95 % needs at least {@link #samplesNeeded(double, double) 368} values.
 *
 * @param n the sample size
 * @param p the quantile, in (0, 1)
 * @param confidence the requested confidence, in (0, 1)
 * @param lower the 1-based rank of the lower bound
 * @param upper the 1-based rank of the upper bound
 * @param coverage the exact probability that the interval covers the quantile, ≥ confidence
 */
public record OrderStatisticRanks(long n, double p, double confidence, long lower, long upper, double coverage) {

  /** Validates. */
  public OrderStatisticRanks {
    checkArguments(n, p, confidence);
    if (lower < 1 || upper > n || lower >= upper) {
      throw new IllegalArgumentException("ranks must satisfy 1 <= lower < upper <= n = " + n + ", were " + lower
          + " and " + upper);
    }
  }

  /**
   * The equal-tailed ranks for the {@code p}-quantile of {@code n} values at {@code confidence}, or
   * empty when n is too small for one side of the interval.
   *
   * @throws IllegalArgumentException if n &lt; 1 or p or confidence is outside (0, 1)
   */
  public static Optional<OrderStatisticRanks> of(long n, double p, double confidence) {
    checkArguments(n, p, confidence);
    if (n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("n must be <= " + Integer.MAX_VALUE + ", was " + n);
    }
    BinomialDistribution b = BinomialDistribution.of((int) n, p);
    double tail = (1 - confidence) / 2;
    // Largest j with B(j) <= tail: inverseCumulativeProbability gives the smallest k with B(k) >= tail.
    int k = b.inverseCumulativeProbability(tail);
    int j = b.cumulativeProbability(k) <= tail ? k : k - 1;
    long lower = j + 1L;
    long upper = b.inverseCumulativeProbability(1 - tail) + 1L;
    if (lower < 1 || upper > n) {
      return Optional.empty();
    }
    double coverage = b.cumulativeProbability((int) upper - 1) - b.cumulativeProbability((int) lower - 1);
    return Optional.of(new OrderStatisticRanks(n, p, confidence, lower, upper, coverage));
  }

  /**
   * The fewest values for which {@link #of} can form the interval: both {@code p^n ≤ α/2} (the
   * upper bound needs a value above the quantile often enough) and {@code (1−p)^n ≤ α/2}; 368 for P99
   * at 95 %, 3,688 for P99.9 at 95 %, 6 for the median at 95 %.
   *
   * @throws IllegalArgumentException if p or confidence is outside (0, 1)
   */
  public static long samplesNeeded(double p, double confidence) {
    checkArguments(1, p, confidence);
    double tail = (1 - confidence) / 2;
    double worst = Math.max(p, 1 - p);
    long n = Math.max(1, (long) Math.floor(Math.log(tail) / Math.log(worst)));
    // The closed form can land one off through rounding; step to the exact boundary.
    while (n > 1 && of(n - 1, p, confidence).isPresent()) {
      n--;
    }
    while (of(n, p, confidence).isEmpty()) {
      n++;
    }
    return n;
  }

  private static void checkArguments(long n, double p, double confidence) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be >= 1, was " + n);
    }
    if (!(p > 0 && p < 1)) {
      throw new IllegalArgumentException("p must be in (0, 1) (0.99 for P99), was " + p);
    }
    if (!(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException("confidence must be in (0, 1) (0.95 for 95 %), was " + confidence);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "OrderStatisticRanks[p %s of n %d at %.3f: ranks %d..%d, coverage %.4f]",
        p, n, confidence, lower, upper, coverage);
  }
}
