package io.infermark.testkit.assertj;

import io.infermark.metrics.Distribution;
import io.infermark.metrics.Percentile;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions over a {@link Distribution} of millisecond values. Pick a statistic
 * ({@link #p50()}, {@link #p99()}, {@link #mean()}, ...) and compare it with a {@link java.time.Duration};
 * every failure message carries the distribution's whole row: count, min, mean, each standard
 * percentile and max. From a CLIENT_BOUND run's {@link RunAssert}, comparisons weigh the client's error bound
 * (see {@link LatencyAssert}).
 */
public final class DistributionAssert extends AbstractAssert<DistributionAssert, Distribution> {

  private final String name;
  /** A line about the run's client health for failure messages; empty when there is nothing to say. */
  private final String healthNote;
  /** A CLIENT_BOUND run's error bound, weighed by every comparison; empty for a run judged as measured. */
  private final Optional<LatencyAssert.ClientBound> bound;

  DistributionAssert(Distribution distribution, String name) {
    this(distribution, name, "", Optional.empty());
  }

  DistributionAssert(Distribution distribution, String name, String healthNote,
      Optional<LatencyAssert.ClientBound> bound) {
    super(distribution, DistributionAssert.class);
    this.name = name;
    this.healthNote = healthNote;
    this.bound = bound;
    isNotNull();
  }

  /** The median. */
  public LatencyAssert p50() {
    return statistic("p50", actual.p50());
  }

  /** The 90th percentile. */
  public LatencyAssert p90() {
    return statistic("p90", actual.p90());
  }

  /** The 95th percentile. */
  public LatencyAssert p95() {
    return statistic("p95", actual.p95());
  }

  /** The 99th percentile. */
  public LatencyAssert p99() {
    return statistic("p99", actual.p99());
  }

  /** The 99.9th percentile. */
  public LatencyAssert p999() {
    return statistic("p99.9", actual.p999());
  }

  /** Any percentile, {@code p} in [0, 1]. */
  public LatencyAssert percentile(double p) {
    return statistic(String.format(Locale.ROOT, "p%s", trim(p * 100)), actual.percentile(p));
  }

  /** The mean. */
  public LatencyAssert mean() {
    return statistic("mean", actual.mean());
  }

  /** The largest value. */
  public LatencyAssert max() {
    return statistic("max", actual.max());
  }

  /** The smallest value. */
  public LatencyAssert min() {
    return statistic("min", actual.min());
  }

  /** Verifies the number of values. */
  public DistributionAssert hasCount(int count) {
    if (actual.count() != count) {
      failWithMessage("Expecting %s to have %d values but it has %d%n  %s", name, count, actual.count(), row());
    }
    return this;
  }

  private LatencyAssert statistic(String label, OptionalDouble value) {
    if (value.isEmpty()) {
      failWithMessage("Expecting %s %s but %s has no values (no successful request defined it)", name, label, name);
    }
    return new LatencyAssert(value.getAsDouble(), name + " " + label, row(), bound);
  }

  /** The whole row, e.g. {@code TTFT (n=200, ms): min 10.100 mean 42.000 p50 40.000 ... max 90.000}. */
  String row() {
    if (actual.isEmpty()) {
      return name + " (n=0)" + (healthNote.isEmpty() ? "" : System.lineSeparator() + "  " + healthNote);
    }
    StringBuilder s = new StringBuilder(name).append(" (n=").append(actual.count()).append(", ms): ");
    s.append("min ").append(ms(actual.min())).append("  mean ").append(ms(actual.mean()));
    boolean flagged = false;
    for (Percentile p : Percentile.values()) {
      s.append("  ").append(p.label()).append(' ').append(ms(actual.percentile(p.p())));
      if (actual.isTailUnreliable(p.p())) {
        s.append('*');
        flagged = true;
      }
    }
    s.append("  max ").append(ms(actual.max()));
    if (flagged) {
      s.append("  (* fewer samples than the percentile needs to be reliable)");
    }
    if (!healthNote.isEmpty()) {
      s.append(System.lineSeparator()).append("  ").append(healthNote);
    }
    return s.toString();
  }

  private static String ms(OptionalDouble v) {
    return String.format(Locale.ROOT, "%.3f", v.getAsDouble());
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
