package io.infermark.metrics;

import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.stats.OrderStatisticRanks;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * An immutable, exact summary of a sample of millisecond values: count, mean, standard deviation,
 * min, max and any percentile, computed from every value (no histogram buckets) with a selectable
 * {@link QuantileMethod} ({@link QuantileMethod#LINEAR}, numpy's default, unless chosen otherwise).
 *
 * <p>The standard deviation is the population one (ddof = 0), as numpy's {@code np.std} and vLLM's
 * {@code std_*_ms} report it. An empty distribution is explicit: {@link #count()} is 0 and every
 * statistic is an empty {@link OptionalDouble}, so no NaN can leak into a report.
 *
 * <p>A percentile resting on too few samples is flagged: {@link #isTailUnreliable(double)} is true
 * for the p-quantile when fewer than {@code 1/(1−p)} values were observed (P99 from fewer than 100,
 * P99.9 from fewer than 1000), because then not even one value is expected above it and it is
 * really a guess at the maximum.
 */
public final class Distribution {

  private static final double[] NO_VALUES = new double[0];
  private static final Percentile[] PERCENTILES = Percentile.values();
  private static final Distribution EMPTY = new Distribution(NO_VALUES, QuantileMethod.LINEAR);

  /**
   * The values. Only the order statistics the standard percentiles need are in their sorted places
   * until the first other percentile (or equality, or a copy) is asked for, which sorts it once.
   * That mutation is invisible from outside and guarded by a private lock.
   */
  private final double[] values;
  private volatile boolean sorted;
  private final Object sortLock = new Object();
  private final QuantileMethod method;
  private final double[] standard;
  private final double min;
  private final double max;
  private final double mean;
  private final double std;

  private Distribution(double[] values, QuantileMethod method) {
    this.values = values;
    this.method = method;
    int n = values.length;
    double sum = 0;
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    // One pass validates, turns -0.0 into 0.0 (so that selection and sorting agree on the order) and
    // accumulates sum, min and max: on 10^8 pooled gaps every pass over the values counts.
    for (int i = 0; i < n; i++) {
      double v = values[i] + 0.0;
      if (!Double.isFinite(v)) {
        throw new IllegalArgumentException("value " + i + " is " + values[i]
            + "; a distribution takes finite milliseconds");
      }
      if (v == 0) {
        values[i] = 0.0; // only then: writing back every value would dirty the whole array
      }
      sum += v;
      if (v < lo) {
        lo = v;
      }
      if (v > hi) {
        hi = v;
      }
    }
    this.mean = n == 0 ? 0 : sum / n;
    // Two passes rather than sum of squares: the one-pass formula cancels catastrophically when the
    // spread is small next to the mean, which is the normal case for latencies.
    double squares = 0;
    for (double v : values) {
      double d = v - mean;
      squares += d * d;
    }
    this.std = n == 0 ? 0 : Math.sqrt(squares / n);
    this.min = lo;
    this.max = hi;
    this.standard = new double[PERCENTILES.length];
    if (n > 0) {
      placeStandardOrderStatistics();
      for (Percentile p : PERCENTILES) {
        standard[p.ordinal()] = method.quantile(values, p.p());
      }
    }
  }

  /**
   * Puts into their sorted places the order statistics the quantile method reads for the standard
   * percentiles, so that it can be applied to the otherwise unsorted array. Core's LINEAR reads the
   * values at floor(p·(n−1)) and the next; NEAREST_RANK the one at ceil(p·n)−1. A margin of one on
   * each side keeps this right should either index calculation round differently; a method this class
   * does not know gets a full sort instead.
   */
  private void placeStandardOrderStatistics() {
    if (method != QuantileMethod.LINEAR && method != QuantileMethod.NEAREST_RANK) {
      Arrays.sort(values);
      sorted = true;
      return;
    }
    int n = values.length;
    // Only the ranks the percentiles read: min and max come from the constructor's pass, and selecting
    // ranks 0 and n-1 as well would cost about one more pass over the values.
    int[] ranks = new int[PERCENTILES.length * 7];
    int r = 0;
    for (Percentile p : PERCENTILES) {
      int linear = (int) Math.floor(p.p() * (n - 1));
      int nearest = (int) Math.ceil(p.p() * n) - 1;
      for (int d = -1; d <= 2; d++) {
        ranks[r++] = clamp(linear + d, n);
      }
      for (int d = -1; d <= 1; d++) {
        ranks[r++] = clamp(nearest + d, n);
      }
    }
    OrderStatistics.select(values, ranks, min, max);
  }

  private static int clamp(int rank, int n) {
    return Math.max(0, Math.min(rank, n - 1));
  }

  /** Sorts the values the first time a caller needs them all in order. */
  private double[] sortedValues() {
    if (!sorted) {
      synchronized (sortLock) {
        if (!sorted) {
          Arrays.sort(values);
          sorted = true;
        }
      }
    }
    return values;
  }

  /** An empty distribution (count 0, linear percentiles). */
  public static Distribution empty() {
    return EMPTY;
  }

  /** An empty distribution that will report the given quantile method. */
  public static Distribution empty(QuantileMethod method) {
    Objects.requireNonNull(method, "method");
    return method == QuantileMethod.LINEAR ? EMPTY : new Distribution(NO_VALUES, method);
  }

  /** The distribution of the given milliseconds with linear (numpy-compatible) percentiles; the array is copied. */
  public static Distribution of(double[] valuesMillis) {
    return of(valuesMillis, QuantileMethod.LINEAR);
  }

  /**
   * The distribution of the given milliseconds; the array is copied.
   *
   * @throws IllegalArgumentException if a value is NaN or infinite
   */
  public static Distribution of(double[] valuesMillis, QuantileMethod method) {
    return ofOwned(valuesMillis.clone(), method);
  }

  /** Takes ownership of {@code values} (reorders it in place), avoiding a copy of large pooled samples. */
  static Distribution ofOwned(double[] values, QuantileMethod method) {
    Objects.requireNonNull(method, "method");
    if (values.length == 0) {
      return empty(method);
    }
    return new Distribution(values, method);
  }

  /** The number of values. */
  public int count() {
    return values.length;
  }

  /** True when there are no values. */
  public boolean isEmpty() {
    return values.length == 0;
  }

  /** How percentiles are computed. */
  public QuantileMethod quantileMethod() {
    return method;
  }

  /** The arithmetic mean in ms, if there are values. */
  public OptionalDouble mean() {
    return isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(mean);
  }

  /** The population standard deviation (ddof = 0, like numpy and vLLM) in ms, if there are values. */
  public OptionalDouble std() {
    return isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(std);
  }

  /** The smallest value in ms, if there are values. */
  public OptionalDouble min() {
    return isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(min);
  }

  /** The largest value in ms, if there are values. */
  public OptionalDouble max() {
    return isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(max);
  }

  /** The median in ms. */
  public OptionalDouble p50() {
    return percentile(0.5);
  }

  /** The 90th percentile in ms. */
  public OptionalDouble p90() {
    return percentile(0.9);
  }

  /** The 95th percentile in ms. */
  public OptionalDouble p95() {
    return percentile(0.95);
  }

  /** The 99th percentile in ms. */
  public OptionalDouble p99() {
    return percentile(0.99);
  }

  /** The 99.9th percentile in ms. */
  public OptionalDouble p999() {
    return percentile(0.999);
  }

  /**
   * The {@code p}-quantile in ms, by this distribution's {@link #quantileMethod()}.
   *
   * @param p in [0, 1]: 0.99 for P99
   * @return the percentile, empty when there are no values
   * @throws IllegalArgumentException if p is outside [0, 1]
   */
  public OptionalDouble percentile(double p) {
    checkP(p);
    if (isEmpty()) {
      return OptionalDouble.empty();
    }
    for (Percentile standardP : PERCENTILES) {
      if (standardP.p() == p) {
        return OptionalDouble.of(standard[standardP.ordinal()]);
      }
    }
    return OptionalDouble.of(method.quantile(sortedValues(), p));
  }

  /**
   * True when the {@code p}-quantile rests on too few values to mean much: fewer than
   * {@link #samplesNeeded(double)}. Always true for an empty distribution.
   *
   * @param p in [0, 1]: 0.99 for P99
   * @throws IllegalArgumentException if p is outside [0, 1]
   */
  public boolean isTailUnreliable(double p) {
    return values.length < samplesNeeded(p);
  }

  /**
   * The fewest values a {@code p}-quantile needs: {@code ceil(1/(1−p))}, so that at least one value
   * is expected above it (2 for the median, 100 for P99, 1000 for P99.9; unbounded for p = 1).
   *
   * @throws IllegalArgumentException if p is outside [0, 1]
   */
  public static int samplesNeeded(double p) {
    checkP(p);
    if (p == 1) {
      return Integer.MAX_VALUE;
    }
    // 1/(1-0.99) is 100.00000000000009 in binary floating point; the slack keeps it at 100.
    double needed = Math.ceil(1 / (1 - p) - 1e-6);
    return needed >= Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) needed;
  }

  /**
   * The {@code p}-quantile with its distribution-free confidence interval: the values whose ranks
   * {@link OrderStatisticRanks#of} chooses, so that the true percentile lies between them with at
   * least {@code confidence}, whatever the shape of the distribution. Not formed (empty bounds) when
   * there are too few values; {@link OrderStatisticRanks#samplesNeeded} says how many it takes.
   *
   * @param p in (0, 1): 0.99 for P99
   * @param confidence in (0, 1): 0.95 for 95 %
   * @throws IllegalArgumentException if p or confidence is outside (0, 1)
   */
  public PercentileInterval percentileInterval(double p, double confidence) {
    return percentileIntervals(new double[] {p}, confidence).get(0);
  }

  /**
   * {@link #percentileInterval} for several quantiles at once, selecting every bounding order
   * statistic in one pass over the values: for a pooled ITL sample of 10^8 gaps that is one linear
   * pass instead of one per percentile.
   *
   * @param ps each in (0, 1)
   * @param confidence in (0, 1)
   * @return one interval per quantile, in the given order
   * @throws IllegalArgumentException if a p or the confidence is outside (0, 1)
   */
  public java.util.List<PercentileInterval> percentileIntervals(double[] ps, double confidence) {
    if (!(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException("confidence must be in (0, 1) (0.95 for 95 %), was " + confidence);
    }
    for (double p : ps) {
      if (!(p > 0 && p < 1)) {
        throw new IllegalArgumentException("p must be in (0, 1) (0.99 for P99), was " + p);
      }
    }
    java.util.List<PercentileInterval> out = new java.util.ArrayList<>(ps.length);
    if (isEmpty()) {
      for (double p : ps) {
        out.add(new PercentileInterval(p, confidence, 0, OptionalDouble.empty(), Optional.empty(),
            OptionalDouble.empty(), OptionalDouble.empty()));
      }
      return out;
    }
    java.util.List<Optional<OrderStatisticRanks>> ranks = new java.util.ArrayList<>(ps.length);
    int[] wanted = new int[2 * ps.length];
    int w = 0;
    for (double p : ps) {
      Optional<OrderStatisticRanks> r = OrderStatisticRanks.of(values.length, p, confidence);
      ranks.add(r);
      if (r.isPresent()) {
        wanted[w++] = (int) r.get().lower() - 1;
        wanted[w++] = (int) r.get().upper() - 1;
      }
    }
    double[] bounds = orderStatistics(java.util.Arrays.copyOf(wanted, w));
    int b = 0;
    for (int i = 0; i < ps.length; i++) {
      OptionalDouble lower = OptionalDouble.empty();
      OptionalDouble upper = OptionalDouble.empty();
      if (ranks.get(i).isPresent()) {
        lower = OptionalDouble.of(bounds[b++]);
        upper = OptionalDouble.of(bounds[b++]);
      }
      out.add(new PercentileInterval(ps[i], confidence, values.length, percentile(ps[i]), ranks.get(i), lower,
          upper));
    }
    return out;
  }

  /**
   * Upper-tail diagnostics: the Hill tail index and whether P99 is stable enough to compare
   * (see {@link TailDiagnostics} for the rule). Sorts the values once.
   */
  public TailDiagnostics tailDiagnostics() {
    return TailDiagnostics.of(this, sortedValues());
  }

  /**
   * The values at zero-based ranks of the ascending order. Before the array is sorted this
   * selects just those ranks; selection only permutes the array, which stays unsorted as far as
   * {@link #sortedValues()} is concerned, and the standard percentiles were computed up front.
   */
  private double[] orderStatistics(int[] ranks) {
    if (!sorted && ranks.length > 0) {
      synchronized (sortLock) {
        if (!sorted) {
          OrderStatistics.select(values, ranks, min, max);
          return read(ranks);
        }
      }
    }
    return read(ranks);
  }

  private double[] read(int[] ranks) {
    double[] out = new double[ranks.length];
    for (int i = 0; i < ranks.length; i++) {
      out[i] = values[ranks[i]];
    }
    return out;
  }

  /** A copy of the values in ascending order, in ms. */
  public double[] sortedValuesMillis() {
    return sortedValues().clone();
  }

  private static void checkP(double p) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("p must be in [0, 1] (0.99 for P99), was " + p);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Distribution d && d.method == method && d.values.length == values.length
        && Arrays.equals(d.sortedValues(), sortedValues());
  }

  @Override
  public int hashCode() {
    return 31 * method.hashCode() + Arrays.hashCode(sortedValues());
  }

  /** One line: {@code Distribution[n=250, mean 12.345 ms, ..., p99 30.100* ms, ...]}, * marking unreliable percentiles. */
  @Override
  public String toString() {
    if (isEmpty()) {
      return "Distribution[empty]";
    }
    StringBuilder s = new StringBuilder("Distribution[n=").append(values.length);
    s.append(String.format(Locale.ROOT, ", mean %.3f ms, std %.3f ms, min %.3f ms", mean, std, min));
    boolean marked = false;
    for (Percentile p : PERCENTILES) {
      boolean unreliable = isTailUnreliable(p.p());
      marked |= unreliable;
      s.append(String.format(Locale.ROOT, ", %s %.3f%s ms", p.label(), standard[p.ordinal()],
          unreliable ? "*" : ""));
    }
    s.append(String.format(Locale.ROOT, ", max %.3f ms", max));
    if (marked) {
      s.append("; * too few samples");
    }
    return s.append(']').toString();
  }
}
