package io.infermark.attribution.change;

import io.infermark.attribution.shapley.ShapleyValues;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * Why a statistic (by default P99) moved between run A and run B: its value in each run and the
 * Shapley contribution of every component to the change, in milliseconds.
 *
 * <p>The contributions add up to {@link #change()} ({@link #efficiencyGap()} reports how far they are
 * from it: rounding for exact values, rounding as well for permutation sampling, whose walks telescope)
 * and do not depend on the order of the components. For comparison it also keeps the one-at-a-time
 * substitutions in both orders ({@link #forwardSubstitution()}, {@link #reverseSubstitution()}): each
 * adds up to the change too, but for a percentile they generally disagree with each other, which is why
 * the Shapley values are reported.
 */
public final class PercentileChange {

  private final String statistic;
  private final ShapleyValues shapley;
  private final Coupling coupling;
  private final int coupledRequests;
  private final int droppedA;
  private final int droppedB;
  private final int skippedA;
  private final int skippedB;
  private final double[] forward;
  private final double[] reverse;

  PercentileChange(String statistic, ShapleyValues shapley, Coupling coupling, int coupledRequests, int droppedA,
      int droppedB, int skippedA, int skippedB, double[] forward, double[] reverse) {
    this.statistic = statistic;
    this.shapley = shapley;
    this.coupling = coupling;
    this.coupledRequests = coupledRequests;
    this.droppedA = droppedA;
    this.droppedB = droppedB;
    this.skippedA = skippedA;
    this.skippedB = skippedB;
    this.forward = forward.clone();
    this.reverse = reverse.clone();
  }

  /** The statistic's name, e.g. {@code p99}. */
  public String statistic() {
    return statistic;
  }

  /** The statistic of run A's coupled requests, in ms. */
  public double statisticA() {
    return shapley.baseValue();
  }

  /** The statistic of run B's coupled requests, in ms. */
  public double statisticB() {
    return shapley.fullValue();
  }

  /** {@code statisticB() − statisticA()}, in ms. */
  public double change() {
    return shapley.fullValue() - shapley.baseValue();
  }

  /** The component names, in the order of run A's table. */
  public List<String> components() {
    return shapley.players();
  }

  /** Component {@code i}'s Shapley contribution to the change, in ms. */
  public double contribution(int i) {
    return shapley.value(i);
  }

  /**
   * The named component's Shapley contribution to the change, in ms.
   *
   * @throws IllegalArgumentException if there is no such component
   */
  public double contribution(String component) {
    return shapley.value(component);
  }

  /** All contributions in component order, in ms; a copy. */
  public double[] contributions() {
    return shapley.values();
  }

  /** The standard error of component {@code i}'s contribution: zero when exact, the sampling error otherwise. */
  public double standardError(int i) {
    return shapley.standardError(i);
  }

  /** Components by decreasing absolute contribution. */
  public List<String> ranking() {
    return shapley.ranking();
  }

  /** {@code change() − Σ contributions}: zero up to rounding. */
  public double efficiencyGap() {
    return shapley.efficiencyGap();
  }

  /** "exact" or "permutation" (sampled, with standard errors). */
  public String method() {
    return shapley.method();
  }

  /** The Shapley values themselves, with the evaluation count. */
  public ShapleyValues shapley() {
    return shapley;
  }

  /** How requests were matched between the runs. */
  public Coupling coupling() {
    return coupling;
  }

  /** The number of coupled rows the statistic was computed over. */
  public int coupledRequests() {
    return coupledRequests;
  }

  /** Run A requests left out because no run B request had their key (paired coupling, when dropping). */
  public int droppedA() {
    return droppedA;
  }

  /** Run B requests left out because no run A request had their key (paired coupling, when dropping). */
  public int droppedB() {
    return droppedB;
  }

  /**
   * Records left out of run A's table before coupling: warmup or cooldown, failed, or (for phases) without a
   * token-bearing chunk ({@link ComponentTable#skippedRecords()}).
   */
  public int skippedA() {
    return skippedA;
  }

  /** Records left out of run B's table before coupling, as {@link #skippedA()}. */
  public int skippedB() {
    return skippedB;
  }

  /**
   * One-at-a-time substitution in component order: component {@code i}'s entry is the change when it is
   * switched to run B after components {@code 0 … i−1} already were, in ms; a copy.
   */
  public double[] forwardSubstitution() {
    return forward.clone();
  }

  /**
   * One-at-a-time substitution in reverse component order: component {@code i}'s entry is the change when
   * it is switched to run B after components {@code i+1 … k−1} already were, in ms; a copy.
   */
  public double[] reverseSubstitution() {
    return reverse.clone();
  }

  /** The largest difference, over components, between the two substitution orders: 0 when order does not matter. */
  public double orderDependence() {
    double max = 0;
    for (int i = 0; i < forward.length; i++) {
      max = Math.max(max, Math.abs(forward[i] - reverse[i]));
    }
    return max;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PercentileChange c && c.statistic.equals(statistic) && c.shapley.equals(shapley)
        && c.coupling == coupling && c.coupledRequests == coupledRequests && c.droppedA == droppedA
        && c.droppedB == droppedB && c.skippedA == skippedA && c.skippedB == skippedB
        && Arrays.equals(c.forward, forward) && Arrays.equals(c.reverse, reverse);
  }

  @Override
  public int hashCode() {
    return 31 * shapley.hashCode() + coupling.hashCode();
  }

  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", "PercentileChange[", "]");
    j.add(String.format(Locale.ROOT, "%s %.3f → %.3f ms (%+.3f)", statistic, statisticA(), statisticB(), change()));
    for (String c : ranking()) {
      int i = components().indexOf(c);
      j.add(shapley.standardError(i) == 0 ? String.format(Locale.ROOT, "%s %+.3f", c, shapley.value(i))
          : String.format(Locale.ROOT, "%s %+.3f±%.3f", c, shapley.value(i), shapley.standardError(i)));
    }
    j.add(String.format(Locale.ROOT, "%s, %s over %d requests", method(), coupling, coupledRequests));
    if (droppedA > 0 || droppedB > 0) {
      j.add("dropped " + droppedA + " of A, " + droppedB + " of B");
    }
    if (skippedA > 0 || skippedB > 0) {
      j.add("skipped " + skippedA + " of A, " + skippedB + " of B");
    }
    j.add(String.format(Locale.ROOT, "gap=%.2g", efficiencyGap()));
    return j.toString();
  }
}
