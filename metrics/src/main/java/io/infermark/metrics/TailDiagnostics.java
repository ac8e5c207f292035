package io.infermark.metrics;

import io.infermark.metrics.stats.HillEstimate;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a distribution's P99 can be trusted, judged from its upper tail.
 *
 * <p>The rule: P99 is {@linkplain #p99Unstable() unstable} when
 * <ol>
 *   <li>its 95 % order-statistic interval cannot be formed (fewer than 368 values), or
 *   <li>the {@link HillEstimate Hill} tail index α over the top ⌊√n⌋ values is below 2: a tail
 *       so heavy that its variance is infinite, where a P99 moves by large steps with each new
 *       extreme value and two runs of the same system disagree, or
 *   <li>the 95 % interval of P99 is wider than half the P99 itself: the data cannot place it
 *       to better than ±25 %.
 * </ol>
 * {@link #reasons()} says which applied. Too few values for a Hill estimate (n &lt; 100) leaves
 * {@link #hill()} empty; rule 1 then already applies.
 *
 * @param hill the Hill estimate, when the sample allowed one
 * @param p99 the P99 with its 95 % interval
 * @param p99Unstable true when any rule above applies
 * @param reasons a short sentence per rule that applied, empty when stable
 */
public record TailDiagnostics(Optional<HillEstimate> hill, PercentileInterval p99, boolean p99Unstable,
    java.util.List<String> reasons) {

  /** The tail index below which P99 is called unstable. */
  public static final double MIN_TAIL_INDEX = 2.0;

  /** The relative interval width (width ÷ P99) above which P99 is called unstable. */
  public static final double MAX_RELATIVE_WIDTH = 0.5;

  private static final int MAX_DECIMALS = 17;

  /** Validates and copies. */
  public TailDiagnostics {
    reasons = java.util.List.copyOf(reasons);
    if (p99Unstable == reasons.isEmpty()) {
      throw new IllegalArgumentException("an unstable P99 needs a reason and a stable one none");
    }
  }

  /** Diagnoses a distribution. */
  static TailDiagnostics of(Distribution d, double[] sortedAscending) {
    Optional<HillEstimate> hill = HillEstimate.of(sortedAscending);
    PercentileInterval p99 = d.percentileInterval(0.99, 0.95);
    java.util.List<String> reasons = new java.util.ArrayList<>();
    if (!p99.isFormed()) {
      reasons.add(String.format(Locale.ROOT, "no 95%% interval for P99 from %d values (needs 368)", d.count()));
    }
    if (hill.isPresent() && hill.get().alpha() < MIN_TAIL_INDEX) {
      reasons.add(heavyTailReason(hill.get().alpha()));
    }
    if (p99.isFormed() && p99.estimateMillis().getAsDouble() > 0
        && p99.widthMillis().getAsDouble() > MAX_RELATIVE_WIDTH * p99.estimateMillis().getAsDouble()) {
      reasons.add(wideIntervalReason(p99.widthMillis().getAsDouble(), p99.estimateMillis().getAsDouble()));
    }
    return new TailDiagnostics(hill, p99, !reasons.isEmpty(), reasons);
  }

  /**
   * The heavy-tail reason, α and the threshold printed with as many decimals (two at least) as it
   * takes for the printed α to be below the printed threshold too: 1.997 reads {@code "1.997 < 2.000"},
   * not {@code "2.00 < 2.0"}.
   */
  static String heavyTailReason(double alpha) {
    int decimals = tailIndexDecimals(alpha);
    return "heavy tail: Hill tail index " + fixed(alpha, decimals) + " < " + fixed(MIN_TAIL_INDEX, decimals);
  }

  /**
   * The wide-interval reason, the width and P99 printed with as many decimals (three at least) as it
   * takes for the printed width to exceed half the printed P99 too.
   */
  static String wideIntervalReason(double width, double p99) {
    int decimals = 3;
    while (decimals < MAX_DECIMALS && !(Double.parseDouble(fixed(width, decimals))
        > MAX_RELATIVE_WIDTH * Double.parseDouble(fixed(p99, decimals)))) {
      decimals++;
    }
    return String.format(Locale.ROOT, "wide interval: 95%% interval of P99 spans %s ms, more than %.0f%% of P99 %s ms",
        fixed(width, decimals), MAX_RELATIVE_WIDTH * 100, fixed(p99, decimals));
  }

  /** Two decimals, or more when two would put α on the other side of the threshold. */
  private static int tailIndexDecimals(double alpha) {
    int decimals = 2;
    boolean below = alpha < MIN_TAIL_INDEX;
    while (decimals < MAX_DECIMALS && (Double.parseDouble(fixed(alpha, decimals)) < MIN_TAIL_INDEX) != below) {
      decimals++;
    }
    return decimals;
  }

  private static String fixed(double value, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", value);
  }

  @Override
  public String toString() {
    return "TailDiagnostics[" + (p99Unstable ? "P99 unstable: " + String.join("; ", reasons) : "P99 stable")
        + hill.map(h -> ", alpha " + fixed(h.alpha(), tailIndexDecimals(h.alpha()))).orElse("") + "]";
  }
}
