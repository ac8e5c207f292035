package io.infermark.testkit.assertj;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions over one latency statistic in milliseconds, compared with {@link Duration}s. A
 * failure names the statistic and shows its distribution's whole row.
 */
public final class LatencyAssert extends AbstractAssert<LatencyAssert, Double> {

  private final String label;
  private final String row;

  LatencyAssert(double millis, String label, String row) {
    super(millis, LatencyAssert.class);
    this.label = label;
    this.row = row;
  }

  /** Verifies the statistic is below {@code limit}. */
  public LatencyAssert isLessThan(Duration limit) {
    if (!(actual < millis(limit))) {
      fail("<", limit);
    }
    return this;
  }

  /** Verifies the statistic is at most {@code limit}. */
  public LatencyAssert isLessThanOrEqualTo(Duration limit) {
    if (!(actual <= millis(limit))) {
      fail("<=", limit);
    }
    return this;
  }

  /** Verifies the statistic is above {@code limit}. */
  public LatencyAssert isGreaterThan(Duration limit) {
    if (!(actual > millis(limit))) {
      fail(">", limit);
    }
    return this;
  }

  /** Verifies the statistic is at least {@code limit}. */
  public LatencyAssert isGreaterThanOrEqualTo(Duration limit) {
    if (!(actual >= millis(limit))) {
      fail(">=", limit);
    }
    return this;
  }

  /** Verifies {@code low <= statistic <= high}. */
  public LatencyAssert isBetween(Duration low, Duration high) {
    if (!(actual >= millis(low) && actual <= millis(high))) {
      failWithMessage("Expecting %s between %s ms and %s ms but was %s ms%n  %s", label, fmt(millis(low)),
          fmt(millis(high)), fmt(actual), row);
    }
    return this;
  }

  /** The statistic in milliseconds. */
  public double millis() {
    return actual;
  }

  private void fail(String op, Duration limit) {
    failWithMessage("Expecting %s %s %s ms but was %s ms%n  %s", label, op, fmt(millis(limit)), fmt(actual), row);
  }

  private static double millis(Duration d) {
    Objects.requireNonNull(d, "limit");
    return d.toNanos() / 1e6;
  }

  private static String fmt(double ms) {
    return String.format(Locale.ROOT, "%.3f", ms);
  }
}
