package io.infermark.attribution.drift;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.stream.Collectors;

/**
 * How a current sample of a latency metric differs from a baseline: divergences over the baseline's
 * quantile bins (PSI with its conventional {@link PsiVerdict}, KL, JS), the two-sample KS test, and a
 * tail comparison of P90/P99/P99.9 by their confidence intervals. Made by {@link Drift}. Immutable.
 *
 * <p>The three look at different things. PSI and the KLs weigh every bin alike and say how much of
 * the mass moved between deciles; KS finds the largest CDF gap; neither sees the slowest 1 % double,
 * which the tail comparison is for. {@link #drifted()} is true when any of them sees a change.
 */
public final class DriftReport {

  private final int baselineCount;
  private final int currentCount;
  private final BinnedDivergence divergence;
  private final KsResult ks;
  private final List<TailComparison> tails;
  private final OptionalDouble p99Ratio;
  private final DriftOptions options;

  DriftReport(int baselineCount, int currentCount, BinnedDivergence divergence, KsResult ks,
      List<TailComparison> tails, OptionalDouble p99Ratio, DriftOptions options) {
    this.baselineCount = baselineCount;
    this.currentCount = currentCount;
    this.divergence = divergence;
    this.ks = ks;
    this.tails = List.copyOf(tails);
    this.p99Ratio = p99Ratio;
    this.options = options;
  }

  /** Number of baseline values. */
  public int baselineCount() {
    return baselineCount;
  }

  /** Number of current values. */
  public int currentCount() {
    return currentCount;
  }

  /** PSI, KL and JS over the baseline's quantile bins, with the counts and shares. */
  public BinnedDivergence divergence() {
    return divergence;
  }

  /** The population stability index, nats. */
  public double psi() {
    return divergence.psi();
  }

  /** The PSI verdict: stable below 0.1, moderate to 0.25, significant above. */
  public PsiVerdict psiVerdict() {
    return divergence.psiVerdict();
  }

  /** {@code KL(current ‖ baseline)}, nats. */
  public double klNats() {
    return divergence.klNats();
  }

  /** Jensen–Shannon divergence, bits (in [0, 1]). */
  public double jsBits() {
    return divergence.jsBits();
  }

  /** The KS test. */
  public KsResult ks() {
    return ks;
  }

  /** One comparison per tail percentile, in the options' order. */
  public List<TailComparison> tails() {
    return tails;
  }

  /** The comparison of one tail percentile, if the options asked for it. */
  public Optional<TailComparison> tail(double p) {
    return tails.stream().filter(t -> t.p() == p).findFirst();
  }

  /** True when some tail percentile's intervals do not overlap. */
  public boolean tailShifted() {
    return tails.stream().anyMatch(TailComparison::shifted);
  }

  /** Current P99 ÷ baseline P99 (point estimates); empty when the baseline's P99 is 0. */
  public OptionalDouble p99Ratio() {
    return p99Ratio;
  }

  /** True when PSI is above 0.1, KS rejects, or a tail shifted. */
  public boolean drifted() {
    return psiVerdict() != PsiVerdict.STABLE || ks.rejects() || tailShifted();
  }

  /** The options used. */
  public DriftOptions options() {
    return options;
  }

  /**
   * One line: {@code DriftReport[5000 vs 5000 values: PSI 0.0012 stable, KL 0.0006 nats, JS 0.0002 bits,
   * KS D=0.0200 p=0.2719 (exact), P99 x2.00, tails P90 x1.00 none, P99 x2.00 slower, P99.9 x2.00 slower]}.
   */
  @Override
  public String toString() {
    String p99 = p99Ratio.isPresent() ? String.format(Locale.ROOT, "x%.2f", p99Ratio.getAsDouble()) : "x?";
    return String.format(Locale.ROOT,
        "DriftReport[%d vs %d values: PSI %.4f %s, KL %.4f nats, JS %.4f bits, KS D=%.4f p=%.4g (%s), P99 %s, "
            + "tails %s]",
        baselineCount, currentCount, psi(), psiVerdict().label(), klNats(), jsBits(), ks.statistic(), ks.pValue(),
        ks.exact() ? "exact" : "asymptotic", p99, tails.stream().map(TailComparison::toString)
            .collect(Collectors.joining(", ")));
  }
}
