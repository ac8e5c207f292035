package io.infermark.core.health;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The limits {@link ClientHealth} judges a run's client by. A figure past its DEGRADED limit makes the
 * run {@link HealthVerdict#DEGRADED}, past its CLIENT_BOUND limit {@link HealthVerdict#CLIENT_BOUND};
 * the worst figure decides. Build with {@link #builder()}; {@link #defaults()} are these, chosen so that
 * an idle machine is comfortably OK and a client that distorts what it measures is not:
 *
 * <table>
 *   <caption>Default limits</caption>
 *   <tr><th>figure</th><th>DEGRADED above</th><th>CLIENT_BOUND above</th><th>why</th></tr>
 *   <tr><td>hiccup p99 (and each {@link Probe}'s p99)</td><td>1 ms</td><td>10 ms</td>
 *     <td>An idle Linux machine wakes a 1 ms sleeper within 0.05–0.2 ms. Past 1 ms, one percent of the run's
 *     time every client thread (those that stamp chunk arrivals too) ran a millisecond or more late, so
 *     millisecond differences are noise. Past 10 ms (more than a scheduler period, and as long as a typical
 *     inter-token gap) the client delays chunks by as much as the server spaces them: ITL and TTFT tails
 *     are the client's.</td></tr>
 *   <tr><td>process CPU, share of the available cores</td><td>70 %</td><td>90 %</td>
 *     <td>Queueing for a core grows steeply with utilisation (at 70 % a runnable thread already often waits
 *     for one); at 90 % the client's threads are waiting for CPU most of the time and the client is the
 *     bottleneck. The figure is the whole JVM's: a server running in the same JVM counts too. Judged for runs
 *     of a second or more ({@link CpuUsage#MIN_JUDGED_WALL_NANOS}): CPU time is counted in 10 ms ticks.</td></tr>
 *   <tr><td>run-queue wait of the client's threads per unit of their run time ({@link RunQueueWait})</td>
 *     <td>–</td><td>1</td>
 *     <td>The kernel's count of how long the client's threads were ready to run but found every core taken.
 *     Past 1 they waited longer than they ran, so every piece of client work (a send, a read, a stamp) took more
 *     than twice as long as it should have: the machine starves the client, whatever its own CPU share says
 *     (CPU hogs, a busy neighbour, a container quota). Below that, what the waits did to the timestamps is what
 *     the hiccup meter and the probes measure, and they judge it and set the floor (on a 2-core machine that
 *     also runs the server, bursts of reads and writes make the client's threads wait 0.5–0.7 ms per ms run with
 *     its timing still inside a millisecond). Judged from {@link RunQueueWait#MIN_JUDGED_RUN_NANOS} of run time,
 *     on Linux.</td></tr>
 *   <tr><td>open loop: achieved rate / scheduled rate</td><td>below 99 %</td><td>below 90 %</td>
 *     <td>An open loop that sends less than its schedule did not offer the load it is labelled with; below
 *     90 % a sweep's level is a different level. Judged only from 10 sent requests up, and only without an
 *     in-flight cap or rate limits (whose waits are deliberate).</td></tr>
 *   <tr><td>open loop: send lag p99</td><td>1 ms</td><td>10 ms</td>
 *     <td>As the hiccup limits: requests left later than scheduled, so latency from the intended time carries
 *     the client's delay. Judged under the same conditions as the rate.</td></tr>
 *   <tr><td>GC: longest pause</td><td>10 ms</td><td>–</td>
 *     <td>A stop-the-world pause stops every stamp; one of 10 ms moves any percentile it lands in by up to
 *     that. A single pause does not make a run client-bound; the hiccup meter sees frequent ones.</td></tr>
 *   <tr><td>GC: pauses, share of the run</td><td>2 %</td><td>10 %</td>
 *     <td>A client that spends a tenth of its time stopped cannot stamp on time.</td></tr>
 *   <tr><td>the error bound (floor) as a share of the p50 of TTFT, TPOT or E2E</td><td>–</td><td>10 %</td>
 *     <td>Weighs the figures above against what the run measured: past their CLIENT_BOUND limits, the timing
 *     figures make a run CLIENT_BOUND only when the client's error reaches a tenth of a measured median, the size
 *     at which two runs' medians, or a run and an SLO, can no longer be told apart reliably; below it the run is
 *     DEGRADED. See {@link ClientHealth}.</td></tr>
 * </table>
 *
 * <p>Immutable.
 *
 * @param degradedHiccupP99 hiccup (and probe) p99 above which the run is DEGRADED
 * @param clientBoundHiccupP99 hiccup (and probe) p99 above which it is CLIENT_BOUND
 * @param degradedCpuShare process CPU as a share of the available cores above which it is DEGRADED
 * @param clientBoundCpuShare the same, CLIENT_BOUND
 * @param clientBoundRunQueueWait run-queue wait per unit of run time of the client's threads above which it is
 *     CLIENT_BOUND
 * @param degradedAchievedRatio achieved / scheduled rate of an open loop below which it is DEGRADED
 * @param clientBoundAchievedRatio the same, CLIENT_BOUND
 * @param degradedSendLagP99 open-loop send lag p99 above which it is DEGRADED
 * @param clientBoundSendLagP99 the same, CLIENT_BOUND
 * @param degradedGcMaxPause longest GC pause above which it is DEGRADED
 * @param degradedGcShare GC pauses as a share of the run above which it is DEGRADED
 * @param clientBoundGcShare the same, CLIENT_BOUND
 * @param materialErrorShare the share of a judged metric's p50 the error bound must reach for timing figures to
 *     make a run CLIENT_BOUND (below it: DEGRADED)
 */
public record HealthThresholds(Duration degradedHiccupP99, Duration clientBoundHiccupP99, double degradedCpuShare,
    double clientBoundCpuShare, double clientBoundRunQueueWait, double degradedAchievedRatio,
    double clientBoundAchievedRatio, Duration degradedSendLagP99, Duration clientBoundSendLagP99,
    Duration degradedGcMaxPause, double degradedGcShare, double clientBoundGcShare, double materialErrorShare) {

  /** The default {@link #materialErrorShare()}: a tenth. */
  public static final double MATERIAL_ERROR_SHARE = 0.10;

  private static final HealthThresholds DEFAULTS = new HealthThresholds(Duration.ofMillis(1), Duration.ofMillis(10),
      0.70, 0.90, 1.0, 0.99, 0.90, Duration.ofMillis(1), Duration.ofMillis(10), Duration.ofMillis(10), 0.02, 0.10,
      MATERIAL_ERROR_SHARE);

  /** Limits with the default {@link #materialErrorShare()}. */
  public HealthThresholds(Duration degradedHiccupP99, Duration clientBoundHiccupP99, double degradedCpuShare,
      double clientBoundCpuShare, double clientBoundRunQueueWait, double degradedAchievedRatio,
      double clientBoundAchievedRatio, Duration degradedSendLagP99, Duration clientBoundSendLagP99,
      Duration degradedGcMaxPause, double degradedGcShare, double clientBoundGcShare) {
    this(degradedHiccupP99, clientBoundHiccupP99, degradedCpuShare, clientBoundCpuShare, clientBoundRunQueueWait,
        degradedAchievedRatio, clientBoundAchievedRatio, degradedSendLagP99, clientBoundSendLagP99, degradedGcMaxPause,
        degradedGcShare, clientBoundGcShare, MATERIAL_ERROR_SHARE);
  }

  /**
   * Validates: durations are positive, each DEGRADED limit lies at or inside its CLIENT_BOUND limit
   * (degraded ≤ client-bound for upper limits, ≥ for the rate ratio), shares and ratios lie in (0, 1].
   */
  public HealthThresholds {
    pair("hiccup p99", degradedHiccupP99, clientBoundHiccupP99);
    pair("send lag p99", degradedSendLagP99, clientBoundSendLagP99);
    positive("degradedGcMaxPause", degradedGcMaxPause);
    share("CPU share", degradedCpuShare, clientBoundCpuShare);
    if (!(clientBoundRunQueueWait > 0 && Double.isFinite(clientBoundRunQueueWait))) {
      throw new IllegalArgumentException("the run-queue wait limit must be finite and > 0, was "
          + clientBoundRunQueueWait);
    }
    share("GC share", degradedGcShare, clientBoundGcShare);
    if (!(materialErrorShare > 0 && Double.isFinite(materialErrorShare))) {
      throw new IllegalArgumentException("the material error share must be finite and > 0, was " + materialErrorShare);
    }
    if (!(clientBoundAchievedRatio > 0 && clientBoundAchievedRatio <= degradedAchievedRatio
        && degradedAchievedRatio <= 1)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "achieved-rate ratios need 0 < client-bound "
          + "<= degraded <= 1, were %s and %s", clientBoundAchievedRatio, degradedAchievedRatio));
    }
  }

  /** The documented defaults (see the table above). */
  public static HealthThresholds defaults() {
    return DEFAULTS;
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder(DEFAULTS);
  }

  /** A builder starting from these limits. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  private static void pair(String what, Duration degraded, Duration bound) {
    positive(what, degraded);
    positive(what, bound);
    if (degraded.compareTo(bound) > 0) {
      throw new IllegalArgumentException(what + ": the DEGRADED limit " + degraded + " must not exceed the "
          + "CLIENT_BOUND limit " + bound);
    }
  }

  private static void positive(String what, Duration d) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be > 0, was " + d);
    }
  }

  private static void share(String what, double degraded, double bound) {
    if (!(degraded > 0 && degraded <= bound && bound <= 1)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "%s limits need 0 < degraded <= client-bound "
          + "<= 1, were %s and %s", what, degraded, bound));
    }
  }

  /** Builds {@link HealthThresholds}; every setter replaces one limit. */
  public static final class Builder {
    private Duration degradedHiccupP99;
    private Duration clientBoundHiccupP99;
    private double degradedCpuShare;
    private double clientBoundCpuShare;
    private double clientBoundRunQueueWait;
    private double degradedAchievedRatio;
    private double clientBoundAchievedRatio;
    private Duration degradedSendLagP99;
    private Duration clientBoundSendLagP99;
    private Duration degradedGcMaxPause;
    private double degradedGcShare;
    private double clientBoundGcShare;
    private double materialErrorShare;

    private Builder(HealthThresholds t) {
      degradedHiccupP99 = t.degradedHiccupP99;
      clientBoundHiccupP99 = t.clientBoundHiccupP99;
      degradedCpuShare = t.degradedCpuShare;
      clientBoundCpuShare = t.clientBoundCpuShare;
      clientBoundRunQueueWait = t.clientBoundRunQueueWait;
      degradedAchievedRatio = t.degradedAchievedRatio;
      clientBoundAchievedRatio = t.clientBoundAchievedRatio;
      degradedSendLagP99 = t.degradedSendLagP99;
      clientBoundSendLagP99 = t.clientBoundSendLagP99;
      degradedGcMaxPause = t.degradedGcMaxPause;
      degradedGcShare = t.degradedGcShare;
      clientBoundGcShare = t.clientBoundGcShare;
      materialErrorShare = t.materialErrorShare;
    }

    /** Hiccup (and probe) p99 limits: DEGRADED above {@code degraded}, CLIENT_BOUND above {@code clientBound}. */
    public Builder hiccupP99(Duration degraded, Duration clientBound) {
      degradedHiccupP99 = degraded;
      clientBoundHiccupP99 = clientBound;
      return this;
    }

    /** Process CPU limits as shares of the available cores, each in (0, 1]. */
    public Builder cpuShare(double degraded, double clientBound) {
      degradedCpuShare = degraded;
      clientBoundCpuShare = clientBound;
      return this;
    }

    /**
     * The run-queue wait per unit of run time of the client's threads ({@link RunQueueWait}) above which a
     * run is CLIENT_BOUND.
     */
    public Builder runQueueWait(double clientBound) {
      clientBoundRunQueueWait = clientBound;
      return this;
    }

    /** Open-loop achieved / scheduled rate: DEGRADED below {@code degraded}, CLIENT_BOUND below {@code clientBound}. */
    public Builder achievedRatio(double degraded, double clientBound) {
      degradedAchievedRatio = degraded;
      clientBoundAchievedRatio = clientBound;
      return this;
    }

    /** Open-loop send lag p99 limits. */
    public Builder sendLagP99(Duration degraded, Duration clientBound) {
      degradedSendLagP99 = degraded;
      clientBoundSendLagP99 = clientBound;
      return this;
    }

    /** The longest GC pause above which a run is DEGRADED. */
    public Builder gcMaxPause(Duration degraded) {
      degradedGcMaxPause = degraded;
      return this;
    }

    /** GC pause time as a share of the run: DEGRADED above {@code degraded}, CLIENT_BOUND above {@code clientBound}. */
    public Builder gcShare(double degraded, double clientBound) {
      degradedGcShare = degraded;
      clientBoundGcShare = clientBound;
      return this;
    }

    /**
     * The share of the p50 of TTFT, TPOT or E2E the client's error bound must reach for its timing figures to make
     * a run CLIENT_BOUND (default {@value HealthThresholds#MATERIAL_ERROR_SHARE}); a very large value never lets
     * timing alone make a run CLIENT_BOUND.
     */
    public Builder materialErrorShare(double share) {
      materialErrorShare = share;
      return this;
    }

    /**
     * The limits.
     *
     * @throws IllegalArgumentException if a limit is out of range or a DEGRADED limit lies beyond its
     *     CLIENT_BOUND limit
     */
    public HealthThresholds build() {
      return new HealthThresholds(degradedHiccupP99, clientBoundHiccupP99, degradedCpuShare, clientBoundCpuShare,
          clientBoundRunQueueWait, degradedAchievedRatio, clientBoundAchievedRatio, degradedSendLagP99,
          clientBoundSendLagP99, degradedGcMaxPause, degradedGcShare, clientBoundGcShare, materialErrorShare);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "HealthThresholds[hiccup p99 %s/%s ms, CPU %.0f/%.0f %%, run-queue wait -/%s, "
        + "achieved %.0f/%.0f %%, send lag p99 %s/%s ms, GC max pause %s ms, GC %.0f/%.0f %% "
        + "(DEGRADED/CLIENT_BOUND), material error %.0f %%]",
        ms(degradedHiccupP99), ms(clientBoundHiccupP99), degradedCpuShare * 100, clientBoundCpuShare * 100,
        clientBoundRunQueueWait, degradedAchievedRatio * 100, clientBoundAchievedRatio * 100,
        ms(degradedSendLagP99), ms(clientBoundSendLagP99), ms(degradedGcMaxPause), degradedGcShare * 100,
        clientBoundGcShare * 100, materialErrorShare * 100);
  }

  static String ms(Duration d) {
    double v = d.toNanos() / 1e6;
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
