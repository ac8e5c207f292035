package io.infermark.core.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Whether a run's own client can be trusted: a verdict, the reasons for it as sentences with their
 * numbers, a measurement floor, and the figures they were judged from.
 *
 * <p><b>The measurement floor</b> is the largest of: the hiccup meter's p99, the longest GC pause, every
 * {@link Probe}'s p99 and, for an open loop whose sends are judged ({@link SendFigures#judged()}), the send
 * lag p99. Each of them is a delay the client itself added to some of its timestamps at least one
 * percent of the time (a GC pause: at least once), so latency differences below the floor are client
 * noise: two runs whose P50 differ by less cannot be told apart by this client, and a client-measured
 * latency may exceed the server's own by about that much. It is 0 when nothing was measured (a run
 * shorter than the hiccup meter's 1 ms sleep has no hiccup sample, and is judged without one).
 *
 * <p><b>The verdict weighs the error.</b> The floor is the client's error bound; {@link #bounds()} sets it beside
 * each latency metric the run measured ({@link MetricBound}: absolute, and as a share of the metric's p50 and p99).
 * A client whose timing figures (hiccups, probe lag, run-queue wait, send lag, GC share) are past their
 * CLIENT_BOUND limits is CLIENT_BOUND only when that bound is a material share of what it measured: at least
 * {@link HealthThresholds#materialErrorShare()} (10 % by default) of the p50 of TTFT, TPOT or E2E. Below that the
 * run is DEGRADED, and its first reason says how small the error is against the figures: a CPU-bound server on the
 * same two cores may delay the client's threads by 8 ms while its TTFT is 750 ms, and those figures stand within
 * about 1 %. ITL's share is shown, and named in a reason when material, without deciding the verdict: a single
 * gap between two chunks is at the scale of the scheduler's own delays, while TPOT, which averages a request's
 * gaps, carries a bound N − 1 times smaller. A client that ran out of CPU (its share of the cores) or did not send
 * as fast as its schedule (the achieved rate) stays CLIENT_BOUND whatever the bound: what it limited is the
 * throughput, not the timestamps. When the machine's cores were busy with other processes while the client's
 * threads waited for them, a reason names that (a CPU-bound server sharing the machine, see
 * {@link SharedMachine}).
 *
 * <p>{@link #UNMEASURED} stands for results built by hand, merged, or read from files without it; nothing
 * refuses or warns about those. Immutable.
 *
 * @param verdict OK, DEGRADED, CLIENT_BOUND or UNMEASURED
 * @param reasons one sentence per figure past a limit, with its value and the limit, worst first (after the
 *     weighing's and the shared machine's sentences when there are any); empty when OK or unmeasured, or one
 *     sentence saying why when the monitors were off
 * @param floorNanos the measurement floor (see above)
 * @param measurements the figures judged; empty when unmeasured or merged from several machines
 * @param bounds the floor beside each latency metric the run measured; empty when unmeasured, merged, or without
 *     a successful request
 */
public record ClientHealth(HealthVerdict verdict, List<String> reasons, long floorNanos,
    Optional<ClientMeasurements> measurements, List<MetricBound> bounds) {

  /** A run whose client was not measured. */
  public static final ClientHealth UNMEASURED =
      new ClientHealth(HealthVerdict.UNMEASURED, List.of(), 0, Optional.empty());

  /** A verdict without bounds (results read from files, merged runs). */
  public ClientHealth(HealthVerdict verdict, List<String> reasons, long floorNanos,
      Optional<ClientMeasurements> measurements) {
    this(verdict, reasons, floorNanos, measurements, List.of());
  }

  /** The health of a run whose monitors were switched off: unmeasured, saying so. */
  public static ClientHealth monitorsOff() {
    return new ClientHealth(HealthVerdict.UNMEASURED, List.of("the client's monitors were off "
        + "(ClientMonitoring.OFF, --client-monitors off): nothing says whether the client kept up"), 0,
        Optional.empty());
  }

  /** Validates and copies. */
  public ClientHealth {
    Objects.requireNonNull(verdict, "verdict");
    reasons = List.copyOf(reasons);
    Objects.requireNonNull(measurements, "measurements");
    bounds = List.copyOf(bounds);
    if (floorNanos < 0) {
      throw new IllegalArgumentException("floorNanos must be >= 0, was " + floorNanos);
    }
    if (verdict.isWarning() && reasons.isEmpty()) {
      throw new IllegalArgumentException("a " + verdict + " verdict needs at least one reason");
    }
  }

  /** Judges measured figures against limits, without weighing them against the run's metrics. */
  public static ClientHealth evaluate(ClientMeasurements m, HealthThresholds t) {
    return evaluate(m, t, List.of());
  }

  /**
   * Judges measured figures against limits and weighs the error bound against the run's metrics (see the class
   * description).
   *
   * @param bounds the floor of {@code m} ({@link #floor(ClientMeasurements)}) beside each metric
   *     ({@link MetricBound}); empty to judge the figures alone
   */
  public static ClientHealth evaluate(ClientMeasurements m, HealthThresholds t, List<MetricBound> bounds) {
    Objects.requireNonNull(m, "m");
    Objects.requireNonNull(t, "t");
    Objects.requireNonNull(bounds, "bounds");
    Judge j = new Judge();
    if (!m.hiccup().isEmpty()) {
      j.above("hiccup p99", m.hiccup().p99Nanos(), t.degradedHiccupP99(), t.clientBoundHiccupP99(),
          "the client's threads could not run on time");
    }
    for (ProbeReading p : m.probes()) {
      if (!p.lateness().isEmpty()) {
        j.above("'" + p.name() + "' lag p99", p.lateness().p99Nanos(), t.degradedHiccupP99(), t.clientBoundHiccupP99(),
            "its tasks waited that long to run, so reads and stamps came late");
      }
    }
    OptionalDouble share = m.cpu().shareOfCores();
    if (share.isPresent() && m.cpu().wallNanos() >= CpuUsage.MIN_JUDGED_WALL_NANOS) {
      double s = share.getAsDouble();
      HealthVerdict v = s > t.clientBoundCpuShare() ? HealthVerdict.CLIENT_BOUND
          : s > t.degradedCpuShare() ? HealthVerdict.DEGRADED : HealthVerdict.OK;
      if (v != HealthVerdict.OK) {
        double limit = v == HealthVerdict.CLIENT_BOUND ? t.clientBoundCpuShare() : t.degradedCpuShare();
        j.saturation(v, String.format(Locale.ROOT, "process CPU %.2f of %d cores (%.0f %%) > %.0f %%: %s",
            m.cpu().coresUsed().getAsDouble(), m.cpu().availableProcessors(), s * 100, limit * 100,
            v == HealthVerdict.CLIENT_BOUND ? "the client ran out of CPU (a server in the same JVM counts too)"
                : "the client's threads may wait for a core (a server in the same JVM counts too)"));
      }
    }
    RunQueueWait rq = m.runQueue();
    if (rq.isJudged() && m.wallNanos() >= CpuUsage.MIN_JUDGED_WALL_NANOS) {
      double waitPerRun = rq.waitPerRun().getAsDouble();
      if (waitPerRun > t.clientBoundRunQueueWait()) {
        j.add(HealthVerdict.CLIENT_BOUND, String.format(Locale.ROOT, "the client's threads waited %s ms for a core "
            + "while they ran %s ms (%.2f per ms run) > %s: other work starves the client, every send, read and "
            + "stamp took more than twice as long as it should have", millis(rq.waitNanos()), millis(rq.runNanos()),
            waitPerRun, t.clientBoundRunQueueWait()));
      }
    }
    SendFigures sends = m.sends();
    if (sends.judged()) {
      if (sends.sent() > 0) {
        j.above("send lag p99", Math.round(sends.lagP99Nanos()), t.degradedSendLagP99(), t.clientBoundSendLagP99(),
            "requests left later than their schedule said");
      }
      OptionalDouble ratio = sends.achievedRatio();
      if (ratio.isPresent()) {
        double r = ratio.getAsDouble();
        HealthVerdict v = r < t.clientBoundAchievedRatio() ? HealthVerdict.CLIENT_BOUND
            : r < t.degradedAchievedRatio() ? HealthVerdict.DEGRADED : HealthVerdict.OK;
        if (v != HealthVerdict.OK) {
          double limit = v == HealthVerdict.CLIENT_BOUND ? t.clientBoundAchievedRatio() : t.degradedAchievedRatio();
          j.saturation(v, String.format(Locale.ROOT, "achieved %.2f req/s = %.1f %% of the %.2f req/s scheduled < %.0f %%: "
              + "the client did not send as fast as asked", sends.achievedRate(), r * 100,
              sends.scheduledRate().getAsDouble(), limit * 100));
        }
      }
    }
    GcPauses gc = m.gc();
    if (gc.maxNanos() > t.degradedGcMaxPause().toNanos()) {
      j.add(HealthVerdict.DEGRADED, String.format(Locale.ROOT, "GC pause of %s ms > %s ms: every client thread "
          + "stopped that long", millis(gc.maxNanos()), HealthThresholds.ms(t.degradedGcMaxPause())));
    }
    double gcShare = gc.shareOf(m.wallNanos());
    if (gcShare > t.degradedGcShare()) {
      HealthVerdict v = gcShare > t.clientBoundGcShare() ? HealthVerdict.CLIENT_BOUND : HealthVerdict.DEGRADED;
      double limit = v == HealthVerdict.CLIENT_BOUND ? t.clientBoundGcShare() : t.degradedGcShare();
      j.add(v, String.format(Locale.ROOT, "GC pauses %.1f %% of the run (%d, %s ms) > %.0f %%: the client spent "
          + "that share of its time stopped", gcShare * 100, gc.count(), millis(gc.totalNanos()), limit * 100));
    }
    long floor = floor(m);
    j.weigh(bounds, t.materialErrorShare(), floor);
    j.nameSharedMachine(m);
    return new ClientHealth(j.verdict, j.reasons(), floor, Optional.of(m), bounds);
  }

  /**
   * The measurement floor of some figures: the largest of hiccup p99, longest GC pause, probe p99s and
   * the judged send lag p99.
   */
  public static long floor(ClientMeasurements m) {
    long floor = Math.max(m.hiccup().p99Nanos(), m.gc().maxNanos());
    for (ProbeReading p : m.probes()) {
      floor = Math.max(floor, p.lateness().p99Nanos());
    }
    if (m.sends().judged()) {
      floor = Math.max(floor, Math.round(m.sends().lagP99Nanos()));
    }
    return floor;
  }

  /** The same figures judged against other limits; an unmeasured health stays as it is. */
  public ClientHealth reevaluate(HealthThresholds thresholds) {
    Objects.requireNonNull(thresholds, "thresholds");
    if (measurements.isEmpty()) {
      return this;
    }
    ClientHealth again = evaluate(measurements.get(), thresholds, bounds);
    if (reasons.isEmpty() || !reasons.get(0).startsWith(EVERY_REQUEST_FAILED) || !again.verdict.isWarning()) {
      return again;
    }
    // The run's outcome does not change with the limits: it still failed every request.
    List<String> out = new ArrayList<>();
    out.add(reasons.get(0).replace(FAILED_NOT_BOUND, "").concat(again.verdict == HealthVerdict.CLIENT_BOUND
        ? FAILED_NOT_BOUND : ""));
    out.addAll(again.reasons);
    return new ClientHealth(HealthVerdict.DEGRADED, out, again.floorNanos, again.measurements, again.bounds);
  }

  /** How the reason of {@link #everyRequestFailed} begins. */
  private static final String EVERY_REQUEST_FAILED = "every one of the ";
  /** How it ends when it demoted a CLIENT_BOUND verdict. */
  private static final String FAILED_NOT_BOUND = "; judged DEGRADED, not CLIENT_BOUND";

  /**
   * The health of several runs taken as one (shards of one run, the levels of a sweep): the worst
   * verdict, every distinct reason, the largest floor, and no figures (they were measured apart).
   * {@link #UNMEASURED} for an empty list.
   */
  public static ClientHealth worstOf(List<ClientHealth> healths) {
    HealthVerdict verdict = HealthVerdict.UNMEASURED;
    Set<String> reasons = new LinkedHashSet<>();
    long floor = 0;
    for (ClientHealth h : healths) {
      verdict = verdict.worse(h.verdict());
      reasons.addAll(h.reasons());
      floor = Math.max(floor, h.floorNanos());
    }
    if (healths.size() == 1) {
      return healths.get(0);
    }
    return new ClientHealth(verdict, verdict.isWarning() ? List.copyOf(reasons) : List.of(), floor, Optional.empty(),
        List.of());
  }

  /**
   * This health for a run in which every one of {@code measured} requests failed, the slowest
   * {@code slowestFailureNanos} after its send: no latency was measured, so nothing the client's figures could have
   * bounded, and a client that sent requests which all failed (often within milliseconds: a refused connection, a
   * wrong path, an HTTP error) did not fall behind a server; its busy figures come from churning through failures. A
   * CLIENT_BOUND verdict therefore becomes DEGRADED, and the first reason says what happened; OK and UNMEASURED stay
   * as they are.
   */
  public ClientHealth everyRequestFailed(long measured, long slowestFailureNanos) {
    if (measured <= 0) {
      throw new IllegalArgumentException("measured must be > 0, was " + measured);
    }
    if (!verdict.isWarning()) {
      return this;
    }
    List<String> out = new ArrayList<>();
    out.add(String.format(Locale.ROOT, EVERY_REQUEST_FAILED + "%d measured requests failed (the slowest %s ms after "
        + "its send): no latency was measured, so the client's figures below bound nothing; the run measured "
        + "failures, not the server (see the failures by category)%s", measured, millis(slowestFailureNanos),
        verdict == HealthVerdict.CLIENT_BOUND ? FAILED_NOT_BOUND : ""));
    out.addAll(reasons);
    return new ClientHealth(HealthVerdict.DEGRADED, out, floorNanos, measurements, bounds);
  }

  /** Whether the run was client-bound: its latencies and throughput are not the server's. */
  public boolean isClientBound() {
    return verdict == HealthVerdict.CLIENT_BOUND;
  }

  /** Whether the verdict is DEGRADED or CLIENT_BOUND. */
  public boolean isWarning() {
    return verdict.isWarning();
  }

  /** Whether the client was measured at all. */
  public boolean isMeasured() {
    return verdict != HealthVerdict.UNMEASURED;
  }

  /** The measurement floor as a duration. */
  public Duration floor() {
    return Duration.ofNanos(floorNanos);
  }

  /** The measurement floor in milliseconds. */
  public double floorMillis() {
    return floorNanos / 1e6;
  }

  /** The reasons joined with {@code "; "}, empty when there are none. */
  public String reasonText() {
    return String.join("; ", reasons);
  }

  /**
   * One line: {@code ClientHealth[CLIENT_BOUND, floor 12.300 ms: hiccup p99 12.3 ms > 10 ms: the client's
   * threads could not run on time]}, {@code ClientHealth[OK, floor 0.120 ms]}, {@code ClientHealth[UNMEASURED]}.
   */
  @Override
  public String toString() {
    if (verdict == HealthVerdict.UNMEASURED && reasons.isEmpty()) {
      return "ClientHealth[UNMEASURED]";
    }
    return String.format(Locale.ROOT, "ClientHealth[%s, floor %.3f ms%s]", verdict, floorNanos / 1e6,
        reasons.isEmpty() ? "" : ": " + reasonText());
  }

  /** Milliseconds with as many decimals as make sense: 0.123, 1.23, 12.3, 123. */
  static String millis(long nanos) {
    double ms = nanos / 1e6;
    if (ms < 10) {
      return String.format(Locale.ROOT, "%.2f", ms);
    }
    if (ms < 100) {
      return String.format(Locale.ROOT, "%.1f", ms);
    }
    return String.format(Locale.ROOT, "%.0f", ms);
  }

  /** Collects reasons, worst verdict first. */
  private static final class Judge {
    private HealthVerdict verdict = HealthVerdict.OK;
    /** Sentences that explain the verdict as a whole (the weighing, the shared machine), first. */
    private final List<String> first = new ArrayList<>();
    private final List<String> bound = new ArrayList<>();
    private final List<String> degraded = new ArrayList<>();
    /** Whether a CLIENT_BOUND reason is the client's saturation (CPU, achieved rate), which no bound weighs away. */
    private boolean saturated;

    void saturation(HealthVerdict v, String reason) {
      saturated |= v == HealthVerdict.CLIENT_BOUND;
      add(v, reason);
    }

    /**
     * Weighs a CLIENT_BOUND from timing figures against the metrics: it stands when the bound is a material share of
     * the p50 of a judged metric, and becomes DEGRADED otherwise. ITL is named when its share is material.
     */
    void weigh(List<MetricBound> bounds, double material, long floor) {
      List<MetricBound> judged = bounds.stream().filter(MetricBound::judged).toList();
      bounds.stream().filter(b -> !b.judged() && b.shareOfP50() >= material && verdict.isWarning()).forEach(b ->
          first.add(String.format(Locale.ROOT, "%s: the error bound %s ms is %s of its p50 %s ms: single gaps between "
              + "chunks are the client's at this load (TPOT, their average per request, is not)", b.metric(),
              millis(b.boundNanos()), MetricBound.percent(b.shareOfP50()), millis(b.p50Nanos()))));
      if (verdict != HealthVerdict.CLIENT_BOUND || judged.isEmpty()) {
        return;
      }
      MetricBound worst = judged.stream().max(java.util.Comparator.comparingDouble(MetricBound::shareOfP50))
          .orElseThrow();
      StringBuilder shares = new StringBuilder();
      for (MetricBound b : judged) {
        shares.append(shares.length() == 0 ? "" : ", ").append(b.metric()).append(' ')
            .append(MetricBound.percent(b.shareOfP50()));
      }
      if (saturated || worst.shareOfP50() >= material) {
        first.add(0, String.format(Locale.ROOT, "the client's error bound (%s ms) is a material share of what it "
            + "measured: %s of the p50 of %s (material from %s; %s)", millis(floor),
            MetricBound.percent(worst.shareOfP50()), worst.metric(), MetricBound.percent(material), shares));
        return;
      }
      verdict = HealthVerdict.DEGRADED;
      first.add(0, String.format(Locale.ROOT, "the client was disturbed, but its error bound (%s ms) is at most %s of "
          + "the p50 of what it measured (%s; CLIENT_BOUND from %s): the figures stand within it, so the run is "
          + "DEGRADED, not CLIENT_BOUND", millis(floor), MetricBound.percent(worst.shareOfP50()), shares,
          MetricBound.percent(material)));
    }

    /** Names a CPU-bound neighbour: the machine's cores busy with other work while the client's threads waited. */
    void nameSharedMachine(ClientMeasurements m) {
      SharedMachine machine = m.machine();
      OptionalDouble busy = machine.busyShare();
      OptionalDouble clientShare = m.cpu().shareOfCores();
      OptionalDouble wait = m.runQueue().waitPerRun();
      if (!verdict.isWarning() || busy.isEmpty() || clientShare.isEmpty() || wait.isEmpty()
          || !m.runQueue().isJudged() || busy.getAsDouble() < SharedMachine.BUSY
          || clientShare.getAsDouble() > busy.getAsDouble() / 2 || wait.getAsDouble() < SharedMachine.STARVED_WAIT_PER_RUN) {
        return;
      }
      first.add(String.format(Locale.ROOT, "the machine's cores were %.0f %% busy while this client used %.0f %% of "
          + "them, and its threads waited %.2f ms for a core per ms they ran: %s CPU-bound on the client's own cores "
          + "and starves the client (see docs/cpu-engine-on-the-same-machine.md)", busy.getAsDouble() * 100,
          clientShare.getAsDouble() * 100, wait.getAsDouble(), machine.localServer()
              .map(h -> "the server at " + h + " runs on this machine: it, or another process, is")
              .orElse("another process on this machine is")));
    }

    void above(String what, long valueNanos, Duration degradedLimit, Duration boundLimit, String meaning) {
      HealthVerdict v = valueNanos > boundLimit.toNanos() ? HealthVerdict.CLIENT_BOUND
          : valueNanos > degradedLimit.toNanos() ? HealthVerdict.DEGRADED : HealthVerdict.OK;
      if (v != HealthVerdict.OK) {
        Duration limit = v == HealthVerdict.CLIENT_BOUND ? boundLimit : degradedLimit;
        add(v, what + " " + millis(valueNanos) + " ms > " + HealthThresholds.ms(limit) + " ms: " + meaning);
      }
    }

    void add(HealthVerdict v, String reason) {
      verdict = verdict.worse(v);
      (v == HealthVerdict.CLIENT_BOUND ? bound : degraded).add(reason);
    }

    List<String> reasons() {
      List<String> all = new ArrayList<>(first);
      all.addAll(bound);
      all.addAll(degraded);
      return all;
    }
  }
}
