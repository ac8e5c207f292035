package io.infermark.attribution.change;

import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.Percentile;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.ToDoubleFunction;

/**
 * The statistic of per-request outcomes whose change between two runs is decomposed: a percentile (the
 * default, P99), the mean, or any function of the sample.
 *
 * <p>Percentiles use {@link QuantileMethod#LINEAR} unless another method is given: numpy's default and
 * the one infermark's metrics report, so {@code percentile(0.99)} of a run's E2E values equals the P99 its
 * summary shows. The decomposition evaluates percentiles of either method without sorting (see the
 * package documentation); other statistics are handed a fresh copy of the outcomes for every coalition.
 */
public final class ChangeStatistic {

  private final String name;
  private final double p;
  private final Optional<QuantileMethod> method;
  private final ToDoubleFunction<double[]> function;

  private ChangeStatistic(String name, double p, Optional<QuantileMethod> method, ToDoubleFunction<double[]> function) {
    this.name = name;
    this.p = p;
    this.method = method;
    this.function = function;
  }

  /**
   * The {@code p}-quantile by linear interpolation (numpy's default), named like {@code p99} or
   * {@code p99.9}.
   *
   * @param p in [0, 1]: 0.99 for P99
   * @throws IllegalArgumentException if p is outside [0, 1]
   */
  public static ChangeStatistic percentile(double p) {
    return percentile(p, QuantileMethod.LINEAR);
  }

  /**
   * The {@code p}-quantile by {@code method}, named like {@code p99} or {@code p99.9} (the percentage
   * with at most four decimals, as phase tables and block statistics name it).
   *
   * @param p in [0, 1]: 0.99 for P99
   * @throws IllegalArgumentException if p is outside [0, 1]
   */
  public static ChangeStatistic percentile(double p, QuantileMethod method) {
    Objects.requireNonNull(method, "method");
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("percentile p must be in [0, 1] (0.99 for P99), was " + p);
    }
    return new ChangeStatistic("p" + Percentile.percentText(p), p, Optional.of(method), values -> {
      double[] sorted = values.clone();
      Arrays.sort(sorted);
      return method.quantile(sorted, p);
    });
  }

  /** The arithmetic mean, named {@code mean}. */
  public static ChangeStatistic mean() {
    return new ChangeStatistic("mean", Double.NaN, Optional.empty(), values -> {
      double sum = 0;
      for (double v : values) {
        sum += v;
      }
      return sum / values.length;
    });
  }

  /**
   * Any statistic of the outcomes. The function receives a copy of the outcomes (at least one value)
   * that it may reorder, and must return a finite number.
   *
   * @throws IllegalArgumentException if the name is blank
   */
  public static ChangeStatistic of(String name, ToDoubleFunction<double[]> function) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(function, "function");
    if (name.isBlank()) {
      throw new IllegalArgumentException("a statistic needs a name, got a blank one");
    }
    return new ChangeStatistic(name, Double.NaN, Optional.empty(), function);
  }

  /** The statistic's name, e.g. {@code p99}. */
  public String name() {
    return name;
  }

  /** The quantile level when this is a percentile, e.g. 0.99; empty otherwise. */
  public OptionalDouble quantile() {
    return Double.isNaN(p) ? OptionalDouble.empty() : OptionalDouble.of(p);
  }

  /** How the percentile is computed when this is one; empty otherwise. */
  public Optional<QuantileMethod> quantileMethod() {
    return method;
  }

  /**
   * The statistic of {@code values}, which are not modified.
   *
   * @throws IllegalArgumentException if there are no values or the statistic is not finite
   */
  public double of(double[] values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("statistic " + name + " needs at least one value");
    }
    double result = function.applyAsDouble(values.clone());
    if (!Double.isFinite(result)) {
      throw new IllegalArgumentException("statistic " + name + " returned " + result);
    }
    return result;
  }

  @Override
  public String toString() {
    return "ChangeStatistic[" + name + "]";
  }
}
