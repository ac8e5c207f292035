package io.infermark.attribution.drift;

import java.util.Locale;
import java.util.Objects;

/**
 * Divergences between a baseline and a current sample over the baseline's {@link QuantileBins}:
 * the population stability index, Kullback–Leibler in both directions and Jensen–Shannon.
 *
 * <p>With counts {@code b_i} (baseline, {@code n} values) and {@code c_i} (current, {@code m} values)
 * over {@code B} bins and pseudo-count {@code α}, the smoothed shares are
 * {@code e_i = (b_i + α) / (n + αB)} (expected) and {@code a_i = (c_i + α) / (m + αB)} (actual). Then,
 * in nats (natural logarithms):
 * <ul>
 *   <li>{@code KL(current ‖ baseline) = Σ a_i ln(a_i / e_i)};
 *   <li>{@code KL(baseline ‖ current) = Σ e_i ln(e_i / a_i)};
 *   <li>{@code PSI = Σ (a_i − e_i) ln(a_i / e_i)}, which is the sum of the two KLs (Jeffreys' divergence);
 *   <li>{@code JS = ½ KL(a ‖ μ) + ½ KL(e ‖ μ)} with {@code μ = (a + e)/2}: reported in nats and in bits
 *       (÷ ln 2, so in [0, 1]). This is the divergence, not scipy's {@code jensenshannon} distance, which is
 *       its square root.
 * </ul>
 * Terms with a zero share contribute 0 where the limit is 0; without smoothing ({@code α = 0}) a bin
 * empty on one side only makes KL and PSI {@code +∞} (JS stays finite). Immutable.
 */
public final class BinnedDivergence {

  private static final double LN2 = Math.log(2);

  private final QuantileBins bins;
  private final long[] baselineCounts;
  private final long[] currentCounts;
  private final double[] baselineShares;
  private final double[] currentShares;
  private final double pseudoCount;
  private final double psi;
  private final double klCurrentBaseline;
  private final double klBaselineCurrent;
  private final double jsNats;

  private BinnedDivergence(QuantileBins bins, long[] baselineCounts, long[] currentCounts, double[] baselineShares,
      double[] currentShares, double pseudoCount) {
    this.bins = bins;
    this.baselineCounts = baselineCounts;
    this.currentCounts = currentCounts;
    this.baselineShares = baselineShares;
    this.currentShares = currentShares;
    this.pseudoCount = pseudoCount;
    double p = 0;
    double kl = 0;
    double klr = 0;
    double js = 0;
    for (int i = 0; i < baselineShares.length; i++) {
      double e = baselineShares[i];
      double a = currentShares[i];
      kl += term(a, e);
      klr += term(e, a);
      if (a != e) {
        p += (a - e) * Math.log(a / e); // ±∞ when exactly one share is 0
      }
      double mu = (a + e) / 2;
      js += 0.5 * term(a, mu) + 0.5 * term(e, mu);
    }
    this.psi = p;
    this.klCurrentBaseline = kl;
    this.klBaselineCurrent = klr;
    this.jsNats = js;
  }

  /** {@code x ln(x / y)}, 0 when x is 0, +∞ when only y is. */
  private static double term(double x, double y) {
    if (x == 0) {
      return 0;
    }
    return y == 0 ? Double.POSITIVE_INFINITY : x * Math.log(x / y);
  }

  /**
   * Bins both samples at the baseline's quantiles and compares them.
   *
   * @param baseline the reference sample, at least one finite value
   * @param current the sample compared with it, at least one finite value
   * @param bins bins to aim for, at least 2
   * @param pseudoCount added to every bin's count in both samples, finite and &gt;= 0
   * @throws IllegalArgumentException if a sample is empty or holds a non-finite value, or a parameter is out of range
   */
  public static BinnedDivergence of(double[] baseline, double[] current, int bins, double pseudoCount) {
    Objects.requireNonNull(current, "current");
    if (!(pseudoCount >= 0) || Double.isInfinite(pseudoCount)) {
      throw new IllegalArgumentException("pseudoCount must be finite and >= 0, was " + pseudoCount);
    }
    if (current.length == 0) {
      throw new IllegalArgumentException("current must hold at least one value, was empty");
    }
    QuantileBins b = QuantileBins.ofBaseline(baseline, bins);
    long[] bc = b.counts(baseline);
    long[] cc = b.counts(current);
    return new BinnedDivergence(b, bc, cc, shares(bc, baseline.length, pseudoCount),
        shares(cc, current.length, pseudoCount), pseudoCount);
  }

  private static double[] shares(long[] counts, int n, double alpha) {
    double[] s = new double[counts.length];
    double total = n + alpha * counts.length;
    for (int i = 0; i < counts.length; i++) {
      s[i] = (counts[i] + alpha) / total;
    }
    return s;
  }

  /** The bins, cut at the baseline's quantiles. */
  public QuantileBins bins() {
    return bins;
  }

  /** The baseline's count per bin; a copy. */
  public long[] baselineCounts() {
    return baselineCounts.clone();
  }

  /** The current sample's count per bin; a copy. */
  public long[] currentCounts() {
    return currentCounts.clone();
  }

  /** The baseline's smoothed share per bin ({@code e_i}); a copy. */
  public double[] baselineShares() {
    return baselineShares.clone();
  }

  /** The current sample's smoothed share per bin ({@code a_i}); a copy. */
  public double[] currentShares() {
    return currentShares.clone();
  }

  /** The pseudo-count used. */
  public double pseudoCount() {
    return pseudoCount;
  }

  /** Population stability index, {@code Σ (a − e) ln(a / e)}, nats. */
  public double psi() {
    return psi;
  }

  /** {@code KL(current ‖ baseline)}, nats: the information lost describing the current sample by the baseline. */
  public double klNats() {
    return klCurrentBaseline;
  }

  /** {@code KL(baseline ‖ current)}, nats. */
  public double klReverseNats() {
    return klBaselineCurrent;
  }

  /** Jensen–Shannon divergence, nats (in [0, ln 2]). */
  public double jsNats() {
    return jsNats;
  }

  /** Jensen–Shannon divergence, bits (in [0, 1]). */
  public double jsBits() {
    return jsNats / LN2;
  }

  /** The PSI verdict. */
  public PsiVerdict psiVerdict() {
    return PsiVerdict.of(psi);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "BinnedDivergence[%d bins, PSI %.4f (%s), KL %.4f nats, JS %.4f bits]",
        bins.binCount(), psi, psiVerdict().label(), klCurrentBaseline, jsBits());
  }
}
