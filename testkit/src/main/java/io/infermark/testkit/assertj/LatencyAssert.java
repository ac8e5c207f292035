package io.infermark.testkit.assertj;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions over one latency statistic in milliseconds, compared with {@link Duration}s. A
 * failure names the statistic and shows its distribution's whole row.
 *
 * <p>For a run whose client was CLIENT_BOUND, each comparison weighs the client's error bound (its
 * measurement floor, {@link io.infermark.core.health.ClientHealth#floorMillis()}). A client's own delays only
 * add to what it measures, never subtract, so a value that meets an upper limit ({@link #isLessThan}) passes
 * and a value below a lower limit ({@link #isGreaterThan}) fails whatever the client's state. A value that
 * misses a limit by more than the error bound fails too. Only a value that misses it by less than the error
 * bound, which the client alone could explain, is refused: the assertion fails saying so, with the client's
 * reasons, instead of blaming the server.
 */
public final class LatencyAssert extends AbstractAssert<LatencyAssert, Double> {

  private final String label;
  private final String row;
  private final Optional<ClientBound> bound;

  LatencyAssert(double millis, String label, String row) {
    this(millis, label, row, Optional.empty());
  }

  LatencyAssert(double millis, String label, String row, Optional<ClientBound> bound) {
    super(millis, LatencyAssert.class);
    this.label = label;
    this.row = row;
    this.bound = Objects.requireNonNull(bound, "bound");
  }

  /** Verifies the statistic is below {@code limit}. */
  public LatencyAssert isLessThan(Duration limit) {
    return atMost(limit, false, "<");
  }

  /** Verifies the statistic is at most {@code limit}. */
  public LatencyAssert isLessThanOrEqualTo(Duration limit) {
    return atMost(limit, true, "<=");
  }

  /** Verifies the statistic is above {@code limit}. */
  public LatencyAssert isGreaterThan(Duration limit) {
    return atLeast(limit, false, ">");
  }

  /** Verifies the statistic is at least {@code limit}. */
  public LatencyAssert isGreaterThanOrEqualTo(Duration limit) {
    return atLeast(limit, true, ">=");
  }

  /** Verifies {@code low <= statistic <= high}. */
  public LatencyAssert isBetween(Duration low, Duration high) {
    double lo = millis(low);
    double hi = millis(high);
    String expectation = "between " + fmt(lo) + " ms and " + fmt(hi);
    if (actual < lo) {
      failWithMessage("Expecting %s %s ms but was %s ms%n  %s", label, expectation, fmt(actual), row);
    }
    double floor = bound.map(ClientBound::floorMillis).orElse(0.0);
    if (actual > hi) {
      if (bound.isPresent() && actual - floor <= hi) {
        refuse(expectation);
      }
      failWithMessage("Expecting %s %s ms but was %s ms%s%n  %s", label, expectation, fmt(actual), beyondBound(), row);
    }
    if (bound.isPresent() && actual - floor < lo) {
      refuse(expectation);
    }
    return this;
  }

  /** The statistic in milliseconds. */
  public double millis() {
    return actual;
  }

  private LatencyAssert atMost(Duration limit, boolean inclusive, String op) {
    double l = millis(limit);
    if (inclusive ? actual <= l : actual < l) {
      return this; // the client's delays only add: a value within the limit is within it
    }
    if (bound.isPresent()) {
      double corrected = actual - bound.get().floorMillis();
      if (inclusive ? corrected <= l : corrected < l) {
        refuse(op + " " + fmt(l));
      }
    }
    failWithMessage("Expecting %s %s %s ms but was %s ms%s%n  %s", label, op, fmt(l), fmt(actual), beyondBound(),
        row);
    return this;
  }

  private LatencyAssert atLeast(Duration limit, boolean inclusive, String op) {
    double l = millis(limit);
    if (!(inclusive ? actual >= l : actual > l)) {
      failWithMessage("Expecting %s %s %s ms but was %s ms%n  %s", label, op, fmt(l), fmt(actual), row);
    }
    if (bound.isPresent()) {
      double corrected = actual - bound.get().floorMillis();
      if (!(inclusive ? corrected >= l : corrected > l)) {
        refuse(op + " " + fmt(l));
      }
    }
    return this;
  }

  private String beyondBound() {
    return bound.isPresent() ? String.format(Locale.ROOT,
        " (past the limit by more than the client's error bound of %s ms)", fmt(bound.get().floorMillis())) : "";
  }

  private void refuse(String expectation) {
    ClientBound b = bound.orElseThrow();
    failWithMessage("Refusing to judge %s %s ms: it was %s ms, and the client's error bound of %s ms (its measurement "
        + "floor) could put it on either side of the limit: the run was CLIENT_BOUND: %s. Give the client more CPU "
        + "or less work (fewer streams, no competing load), or call ignoringClientHealth() to judge the value as "
        + "measured%n  %s", label, expectation, fmt(actual), fmt(b.floorMillis()), b.reasons(), row);
  }

  private static double millis(Duration d) {
    Objects.requireNonNull(d, "limit");
    return d.toNanos() / 1e6;
  }

  private static String fmt(double ms) {
    return String.format(Locale.ROOT, "%.3f", ms);
  }

  /** A CLIENT_BOUND run's error bound and the reasons it was judged so, for comparisons and messages. */
  record ClientBound(double floorMillis, String reasons) {}
}
