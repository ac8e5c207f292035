package io.infermark.core.control;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Dual calibration (seed 003 §2.3): find and hold an offered rate that keeps two limits at once, a
 * request-rate ceiling and a token-throughput floor, e.g. QPS ≤ 1,200 and output TPS ≥ 850.
 *
 * <pre>{@code
 * DualCalibration cal = DualCalibration.of(1200, 850);
 * RunResult run = Benchmark.target(t).prompts(p).params(params)
 *     .load(LoadProfile.controlled(cal.controller()).duration(Duration.ofMinutes(2))).run();
 * DualCalibration.Verdict v = cal.verdict(run, Duration.ofSeconds(30)); // judged after 30 s of settling
 * }</pre>
 *
 * <p>The {@link #controller()} is a {@link PidController} on output tokens/s (over a trailing
 * {@code window} [1 s]) holding it {@code margin} [5 %] above the floor, with the offered rate
 * confined to {@code (0, maxQps]}: the ceiling is a hard clamp, so the run never offers more. If the
 * floor cannot be reached under the ceiling (too few tokens per request) the rate pins at the
 * ceiling and the verdict says so: raise tokens per request (or items per request, see
 * {@link KnobController}) rather than the rate.
 *
 * <p>The verdict counts measured requests sent in {@code [settle, end)} ({@code end} the profile's
 * duration, else the last send): QPS = their number / (end − settle); TPS = their successful
 * output tokens / (end − settle). It passes when QPS ≤ maxQps and TPS ≥ minTps.
 */
public final class DualCalibration {

  private final double maxQps;
  private final double minTps;
  private final double margin;
  private final Duration window;
  private final Duration interval;
  private final double initialRate;

  private DualCalibration(double maxQps, double minTps, double margin, Duration window, Duration interval,
      double initialRate) {
    this.maxQps = maxQps;
    this.minTps = minTps;
    this.margin = margin;
    this.window = window;
    this.interval = interval;
    this.initialRate = initialRate;
  }

  /**
   * Calibration to at most {@code maxQps} requests/s and at least {@code minTps} output tokens/s;
   * margin 5 %, window 1 s, interval 250 ms, starting at 1 % of the ceiling.
   */
  public static DualCalibration of(double maxQps, double minTps) {
    if (!(maxQps > 0) || Double.isInfinite(maxQps) || !(minTps > 0) || Double.isInfinite(minTps)) {
      throw new IllegalArgumentException("maxQps and minTps must be finite and > 0, were " + maxQps + " and " + minTps);
    }
    return new DualCalibration(maxQps, minTps, 0.05, Duration.ofSeconds(1), Duration.ofMillis(250), maxQps / 100);
  }

  /** The same with the token-throughput target {@code fraction} above the floor (in [0, 1)). */
  public DualCalibration margin(double fraction) {
    if (!(fraction >= 0 && fraction < 1)) {
      throw new IllegalArgumentException("margin must be in [0, 1), was " + fraction);
    }
    return new DualCalibration(maxQps, minTps, fraction, window, interval, initialRate);
  }

  /** The same measuring tokens/s over {@code window} and updating every {@code interval}. */
  public DualCalibration timing(Duration window, Duration interval) {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(interval, "interval");
    if (window.isNegative() || window.isZero() || interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("window and interval must be > 0, were " + window + " and " + interval);
    }
    return new DualCalibration(maxQps, minTps, margin, window, interval, initialRate);
  }

  /** The same starting at {@code rate} requests/s (in (0, maxQps]). */
  public DualCalibration initialRate(double rate) {
    if (!(rate > 0 && rate <= maxQps)) {
      throw new IllegalArgumentException("initialRate must be in (0, " + maxQps + "], was " + rate);
    }
    return new DualCalibration(maxQps, minTps, margin, window, interval, rate);
  }

  /** The token-throughput target the controller holds: {@code minTps × (1 + margin)}. */
  public double targetTps() {
    return minTps * (1 + margin);
  }

  /**
   * The controller: PID on output tokens/s at {@link #targetTps()}, rate in
   * {@code [min(initial rate, maxQps / 1000), maxQps]}, gains kp = ki = the initial rate (requests/s
   * per unit relative error, {@link PidController}'s default: start near the answer for a fast,
   * stable approach).
   */
  public PidController controller() {
    return PidController.builder(ControlSignal.outputTokensPerSecond(window), targetTps()).initialRate(initialRate)
        .rateRange(Math.min(initialRate, maxQps / 1000), maxQps).gains(initialRate, initialRate, 0).interval(interval)
        .build();
  }

  /**
   * Judges a run after its first {@code settle}.
   *
   * @throws IllegalArgumentException if no measured request was sent after {@code settle}
   */
  public Verdict verdict(RunResult run, Duration settle) {
    Objects.requireNonNull(run, "run");
    long from = settle.toNanos();
    List<RequestRecord> in = run.measured().stream().filter(r -> r.wasSent() && r.sendNanos() >= from).toList();
    if (in.isEmpty()) {
      throw new IllegalArgumentException("no measured request was sent after " + settle + "; settle sooner or run longer");
    }
    long end = run.load().duration().map(Duration::toNanos)
        .orElse(in.stream().mapToLong(RequestRecord::sendNanos).max().getAsLong());
    double seconds = Math.max(end - from, 1) / 1e9;
    long tokens = in.stream().filter(RequestRecord::succeeded).mapToLong(RequestRecord::outputTokens).sum();
    double qps = in.size() / seconds;
    double tps = tokens / seconds;
    List<String> reasons = new ArrayList<>();
    if (qps > maxQps) {
      reasons.add(String.format(Locale.ROOT, "QPS %.1f > %.1f", qps, maxQps));
    }
    if (tps < minTps) {
      double perRequest = in.isEmpty() ? 0 : (double) tokens / in.size();
      reasons.add(String.format(Locale.ROOT, "TPS %.1f < %.1f", tps, minTps)
          + (perRequest * maxQps < minTps ? String.format(Locale.ROOT, " and unreachable under the QPS ceiling: "
          + "%.1f tokens per request x %.1f requests/s = %.1f tokens/s; raise tokens (items) per request", perRequest,
          maxQps, perRequest * maxQps) : ""));
    }
    return new Verdict(reasons.isEmpty(), qps, tps, maxQps, minTps, in.size(), reasons);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "DualCalibration[QPS <= %s, TPS >= %s, margin %s, window %s, every %s]", maxQps,
        minTps, margin, window, interval);
  }

  /**
   * A dual calibration's outcome.
   *
   * @param pass both limits held
   * @param qps requests/s sent in the judged window
   * @param tps successful output tokens/s of those requests
   * @param maxQps the ceiling
   * @param minTps the floor
   * @param requests requests in the window
   * @param reasons each limit broken, in words; empty on a pass
   */
  public record Verdict(boolean pass, double qps, double tps, double maxQps, double minTps, int requests,
      List<String> reasons) {

    /** Copies. */
    public Verdict {
      reasons = List.copyOf(reasons);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "DualCalibration.Verdict[%s, QPS %.1f (<= %.1f), TPS %.1f (>= %.1f), %d "
          + "requests%s]", pass ? "PASS" : "FAIL", qps, maxQps, tps, minTps, requests,
          reasons.isEmpty() ? "" : ", " + String.join("; ", reasons));
    }
  }
}
