package io.infermark.core.sweep;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.control.ControlSignal;
import io.infermark.core.control.PidController;
import io.infermark.core.control.TransactionsPerSecond;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * Dual calibration (seed 003 §2.3, "QPS-TPS双维校准"): find and hold an offered rate that keeps a
 * request-rate ceiling and a transaction-rate floor at once, with the seed's SLA behind the floor.
 * The seed's table:
 *
 * <table>
 *   <caption>seed 003 §2.3</caption>
 *   <tr><th>dimension</th><th>definition</th><th>target</th></tr>
 *   <tr><td>QPS</td><td>每秒接收请求总数 (requests received per second)</td><td>≤ 1200</td></tr>
 *   <tr><td>TPS</td><td>每秒完成端到端推理事务数 (end-to-end inference transactions completed per
 *       second)</td><td>≥ 850, 保障SLA 99.5%延迟&lt;800ms (so that 99.5 % of latencies stay under 800 ms)</td></tr>
 * </table>
 *
 * <p>Chapter 1 names QPS, TPS and Token/s as three separate dimensions of concurrency control; tokens
 * per second is the third, optional here ({@link #minTokensPerSecond(double)}), never called TPS.
 *
 * <p><b>Three quantities are called "TPS" in the seeds; each has its own name here.</b> Seed 002's "每秒输出
 * Token数TPS" is output tokens per second ({@code RunSummary.outputTokenThroughputTps()}, "output tok/s"; the
 * verdict's {@link Verdict#tokensPerSecond()}). Seed 003's TPS, "每秒完成端到端推理事务数", is <b>completed
 * TPS</b>, {@link Verdict#completedTps()}: successful requests completed per second, whatever their latency.
 * What this calibration steers by and holds to the floor is stricter, <b>on-time TPS</b>,
 * {@link Verdict#onTimeTps()}: only the transactions completed within the SLA latency, closer to goodput
 * (on-time TPS ≤ completed TPS); the seed's SLA condition is then also checked as a share.
 *
 * <pre>{@code
 * DualCalibration cal = DualCalibration.of(1200, 850);          // SLA 99.5 % under 800 ms
 * RunResult run = Benchmark.target(t).prompts(p).params(params)
 *     .load(LoadProfile.controlled(cal.controller()).duration(Duration.ofMinutes(2))).run();
 * DualCalibration.Verdict v = cal.verdict(run, Duration.ofSeconds(30)); // judged after 30 s of settling
 * }</pre>
 *
 * <p>A <b>transaction</b> is a measured request that succeeded with an E2E (last token-bearing chunk −
 * send) within the SLA latency [800 ms]; it completes at its end (send + end offset). The
 * {@link #controller()} is a {@link PidController} on transactions/s
 * ({@link ControlSignal#transactionsPerSecond}, over a trailing {@code window} [1 s]) holding them
 * {@code margin} [5 %] above the floor, with the offered rate confined to {@code (0, maxQps]}: the
 * ceiling is a hard clamp, so the run never offers more. A transaction is one request, so a floor above
 * the ceiling is refused.
 *
 * <p>The verdict judges {@code [settle, end)} ({@code end} the profile's duration, else just after the
 * last send): QPS = measured requests sent in it / (end − settle) (a late client's sends after the end
 * are outside); TPS = transactions that completed in it /
 * (end − settle); SLA share = of the requests sent in it, those that are transactions (failures and
 * slow answers count as misses, as in goodput); Token/s = output tokens of the successful requests
 * sent in it / (end − settle). It passes when QPS ≤ maxQps, TPS ≥ minTps, the SLA share ≥ its target
 * [99.5 %] and, if set, Token/s ≥ its floor.
 */
public final class DualCalibration {

  /** The seed's SLA latency: 800 ms. */
  public static final Duration SEED_SLA_LATENCY = Duration.ofMillis(800);
  /** The seed's SLA share: 99.5 %. */
  public static final double SEED_SLA_SHARE = 0.995;

  private final double maxQps;
  private final double minTps;
  private final Duration slaLatency;
  private final double slaShare;
  private final double minTokensPerSecond;
  private final double margin;
  private final Duration window;
  private final Duration interval;
  private final double initialRate;

  private DualCalibration(double maxQps, double minTps, Duration slaLatency, double slaShare,
      double minTokensPerSecond, double margin, Duration window, Duration interval, double initialRate) {
    this.maxQps = maxQps;
    this.minTps = minTps;
    this.slaLatency = slaLatency;
    this.slaShare = slaShare;
    this.minTokensPerSecond = minTokensPerSecond;
    this.margin = margin;
    this.window = window;
    this.interval = interval;
    this.initialRate = initialRate;
  }

  /**
   * Calibration to at most {@code maxQps} requests/s and at least {@code minTps} transactions/s, the
   * seed's SLA (99.5 % under 800 ms), no Token/s floor; margin 5 %, window 1 s, interval 250 ms,
   * starting at 1 % of the ceiling.
   *
   * @throws IllegalArgumentException if a limit is not finite and &gt; 0, or the floor is above the ceiling (a
   *     transaction is a request: TPS can never exceed QPS)
   */
  public static DualCalibration of(double maxQps, double minTps) {
    if (!(maxQps > 0) || Double.isInfinite(maxQps) || !(minTps > 0) || Double.isInfinite(minTps)) {
      throw new IllegalArgumentException("maxQps and minTps must be finite and > 0, were " + maxQps + " and " + minTps);
    }
    if (minTps > maxQps) {
      throw new IllegalArgumentException("minTps " + minTps + " is above maxQps " + maxQps + ": a transaction is a "
          + "completed request, so TPS can never exceed QPS; for a token floor use minTokensPerSecond");
    }
    return new DualCalibration(maxQps, minTps, SEED_SLA_LATENCY, SEED_SLA_SHARE, Double.NaN, 0.05,
        Duration.ofSeconds(1), Duration.ofMillis(250), maxQps / 100);
  }

  /**
   * The same with another SLA: a transaction's E2E is at most {@code latency}, and at least {@code share}
   * (in (0, 1]) of the requests sent must be transactions.
   */
  public DualCalibration sla(Duration latency, double share) {
    Objects.requireNonNull(latency, "latency");
    if (latency.isNegative() || latency.isZero()) {
      throw new IllegalArgumentException("SLA latency must be > 0, was " + latency);
    }
    if (!(share > 0 && share <= 1)) {
      throw new IllegalArgumentException("SLA share must be in (0, 1], was " + share);
    }
    return new DualCalibration(maxQps, minTps, latency, share, minTokensPerSecond, margin, window, interval,
        initialRate);
  }

  /**
   * The same with a third dimension, Token/s: at least {@code tokensPerSecond} output tokens/s of
   * successful requests (judged by the verdict; the controller steers by transactions).
   */
  public DualCalibration minTokensPerSecond(double tokensPerSecond) {
    if (!(tokensPerSecond > 0) || Double.isInfinite(tokensPerSecond)) {
      throw new IllegalArgumentException("minTokensPerSecond must be finite and > 0, was " + tokensPerSecond);
    }
    return new DualCalibration(maxQps, minTps, slaLatency, slaShare, tokensPerSecond, margin, window, interval,
        initialRate);
  }

  /** The same with the transaction-rate target {@code fraction} above the floor (in [0, 1)). */
  public DualCalibration margin(double fraction) {
    if (!(fraction >= 0 && fraction < 1)) {
      throw new IllegalArgumentException("margin must be in [0, 1), was " + fraction);
    }
    return new DualCalibration(maxQps, minTps, slaLatency, slaShare, minTokensPerSecond, fraction, window, interval,
        initialRate);
  }

  /** The same measuring transactions/s over {@code window} and updating every {@code interval}. */
  public DualCalibration timing(Duration window, Duration interval) {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(interval, "interval");
    if (window.isNegative() || window.isZero() || interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("window and interval must be > 0, were " + window + " and " + interval);
    }
    return new DualCalibration(maxQps, minTps, slaLatency, slaShare, minTokensPerSecond, margin, window, interval,
        initialRate);
  }

  /** The same starting at {@code rate} requests/s (in (0, maxQps]). */
  public DualCalibration initialRate(double rate) {
    if (!(rate > 0 && rate <= maxQps)) {
      throw new IllegalArgumentException("initialRate must be in (0, " + maxQps + "], was " + rate);
    }
    return new DualCalibration(maxQps, minTps, slaLatency, slaShare, minTokensPerSecond, margin, window, interval,
        rate);
  }

  /** The transaction-rate target the controller holds: {@code min(minTps × (1 + margin), maxQps)}. */
  public double targetTps() {
    return Math.min(minTps * (1 + margin), maxQps);
  }

  /** The SLA latency a transaction's E2E must not exceed. */
  public Duration slaLatency() {
    return slaLatency;
  }

  /** The share of requests that must be transactions. */
  public double slaShare() {
    return slaShare;
  }

  /** The Token/s floor, if set. */
  public OptionalDouble minTokensPerSecond() {
    return Double.isNaN(minTokensPerSecond) ? OptionalDouble.empty() : OptionalDouble.of(minTokensPerSecond);
  }

  /**
   * The controller: PID on transactions/s within the SLA at {@link #targetTps()}, rate in
   * {@code [min(initial rate, maxQps / 1000), maxQps]}, gains kp = ki = the initial rate (requests/s
   * per unit relative error, {@link PidController}'s default: start near the answer for a fast,
   * stable approach).
   */
  public PidController controller() {
    return PidController.builder(ControlSignal.transactionsPerSecond(window, slaLatency), targetTps())
        .initialRate(initialRate).rateRange(Math.min(initialRate, maxQps / 1000), maxQps)
        .gains(initialRate, initialRate, 0).interval(interval).build();
  }

  /**
   * Judges a run after its first {@code settle}.
   *
   * @throws IllegalArgumentException if no measured request was sent after {@code settle}
   */
  public Verdict verdict(RunResult run, Duration settle) {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(settle, "settle");
    long from = settle.toNanos();
    List<RequestRecord> measured = run.measured().stream().filter(RequestRecord::wasSent).toList();
    List<RequestRecord> after = measured.stream().filter(r -> r.sendNanos() >= from).toList();
    if (after.isEmpty()) {
      throw new IllegalArgumentException("no measured request was sent after " + settle + "; settle sooner or run longer");
    }
    long end = run.load().duration().map(Duration::toNanos)
        .orElse(after.stream().mapToLong(RequestRecord::sendNanos).max().getAsLong() + 1);
    // A client that fell behind sends after the run's duration: those sends are outside the window.
    List<RequestRecord> sent = after.stream().filter(r -> r.sendNanos() < end).toList();
    if (sent.isEmpty()) {
      throw new IllegalArgumentException("no measured request was sent between " + settle + " and the run's end");
    }
    double seconds = Math.max(end - from, 1) / 1e9;
    long sla = slaLatency.toNanos();
    long completed = measured.stream().filter(r -> TransactionsPerSecond.withinSla(r, sla)).mapToLong(
        r -> r.sendNanos() + r.endOffsetNanos()).filter(t -> t >= from && t < end).count();
    long completedAnyLatency = measured.stream().filter(RequestRecord::succeeded).mapToLong(
        r -> r.sendNanos() + r.endOffsetNanos()).filter(t -> t >= from && t < end).count();
    long onTime = sent.stream().filter(r -> TransactionsPerSecond.withinSla(r, sla)).count();
    long tokens = sent.stream().filter(RequestRecord::succeeded).mapToLong(RequestRecord::outputTokens).sum();
    double qps = sent.size() / seconds;
    double tps = completed / seconds;
    double share = onTime / (double) sent.size();
    double tokensPerSecond = tokens / seconds;
    List<String> reasons = new ArrayList<>();
    if (qps > maxQps) {
      reasons.add(String.format(Locale.ROOT, "QPS %.1f > %.1f", qps, maxQps));
    }
    if (tps < minTps) {
      reasons.add(String.format(Locale.ROOT, "on-time TPS %.1f < %.1f (transactions completed within %d ms per second)",
          tps, minTps, slaLatency.toMillis()));
    }
    if (share < slaShare) {
      reasons.add(String.format(Locale.ROOT, "SLA %.2f%% of requests within %d ms < %.2f%%", share * 100,
          slaLatency.toMillis(), slaShare * 100));
    }
    if (!Double.isNaN(minTokensPerSecond) && tokensPerSecond < minTokensPerSecond) {
      double perRequest = (double) tokens / sent.size();
      reasons.add(String.format(Locale.ROOT, "Token/s %.1f < %.1f", tokensPerSecond, minTokensPerSecond)
          + (perRequest * maxQps < minTokensPerSecond ? String.format(Locale.ROOT, " and unreachable under the QPS "
          + "ceiling: %.1f tokens per request x %.1f requests/s = %.1f tokens/s; raise tokens (items) per request",
          perRequest, maxQps, perRequest * maxQps) : ""));
    }
    return new Verdict(reasons.isEmpty(), qps, tps, completedAnyLatency / seconds, share, tokensPerSecond, maxQps,
        minTps, slaShare, minTokensPerSecond(), sent.size(), completed, reasons);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "DualCalibration[QPS <= %s, TPS >= %s (SLA %s%% within %d ms)%s, margin %s, "
        + "window %s, every %s]", maxQps, minTps, slaShare * 100, slaLatency.toMillis(),
        Double.isNaN(minTokensPerSecond) ? "" : ", Token/s >= " + minTokensPerSecond, margin, window, interval);
  }

  /**
   * A dual calibration's outcome.
   *
   * @param pass every limit held
   * @param qps measured requests/s sent in the judged window
   * @param onTimeTps on-time TPS: transactions (successes with E2E within the SLA latency) completed per second in
   *     the window; what the floor is held to
   * @param completedTps completed TPS, seed 003 §2.3's TPS as written ("每秒完成端到端推理事务数"): successful
   *     requests completed per second in the window, whatever their latency; at least {@code onTimeTps}
   * @param slaShare the share of requests sent in the window that were transactions
   * @param tokensPerSecond output tokens/s of the successful requests sent in the window (the third dimension;
   *     seed 002's "TPS")
   * @param maxQps the ceiling
   * @param minTps the floor on on-time TPS
   * @param slaTarget the share the SLA asks for
   * @param minTokensPerSecond the Token/s floor, if one was set
   * @param requests requests sent in the window
   * @param transactions transactions (on time) completed in the window
   * @param reasons each limit broken, in words; empty on a pass
   */
  public record Verdict(boolean pass, double qps, double onTimeTps, double completedTps, double slaShare,
      double tokensPerSecond, double maxQps, double minTps, double slaTarget, OptionalDouble minTokensPerSecond,
      int requests, long transactions, List<String> reasons) {

    /** Copies. */
    public Verdict {
      Objects.requireNonNull(minTokensPerSecond, "minTokensPerSecond");
      reasons = List.copyOf(reasons);
    }

    /**
     * The on-time TPS, {@link #onTimeTps()}.
     *
     * @deprecated "TPS" names three quantities in the seeds; use {@link #onTimeTps()} (within the SLA, what the
     *     floor is held to) or {@link #completedTps()} (seed 003's, any latency)
     */
    @Deprecated
    public double tps() {
      return onTimeTps;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "DualCalibration.Verdict[%s, QPS %.1f (<= %.1f), on-time TPS %.1f (>= %.1f), "
          + "completed TPS %.1f, SLA %.2f%% (>= %.2f%%), Token/s %.1f%s, %d requests, %d transactions%s]",
          pass ? "PASS" : "FAIL", qps, maxQps, onTimeTps, minTps, completedTps, slaShare * 100, slaTarget * 100,
          tokensPerSecond, minTokensPerSecond.isPresent()
              ? String.format(Locale.ROOT, " (>= %.1f)", minTokensPerSecond.getAsDouble()) : "", requests,
          transactions, reasons.isEmpty() ? "" : ", " + String.join("; ", reasons));
    }
  }
}
