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
 * <p>{@link #UNMEASURED} stands for results built by hand, merged, or read from files without it; nothing
 * refuses or warns about those. Immutable.
 *
 * @param verdict OK, DEGRADED, CLIENT_BOUND or UNMEASURED
 * @param reasons one sentence per figure past a limit, with its value and the limit, worst first; empty
 *     when OK or unmeasured
 * @param floorNanos the measurement floor (see above)
 * @param measurements the figures judged; empty when unmeasured or merged from several machines
 */
public record ClientHealth(HealthVerdict verdict, List<String> reasons, long floorNanos,
    Optional<ClientMeasurements> measurements) {

  /** A run whose client was not measured. */
  public static final ClientHealth UNMEASURED =
      new ClientHealth(HealthVerdict.UNMEASURED, List.of(), 0, Optional.empty());

  /** Validates and copies. */
  public ClientHealth {
    Objects.requireNonNull(verdict, "verdict");
    reasons = List.copyOf(reasons);
    Objects.requireNonNull(measurements, "measurements");
    if (floorNanos < 0) {
      throw new IllegalArgumentException("floorNanos must be >= 0, was " + floorNanos);
    }
    if (verdict.isWarning() && reasons.isEmpty()) {
      throw new IllegalArgumentException("a " + verdict + " verdict needs at least one reason");
    }
  }

  /** Judges measured figures against limits. */
  public static ClientHealth evaluate(ClientMeasurements m, HealthThresholds t) {
    Objects.requireNonNull(m, "m");
    Objects.requireNonNull(t, "t");
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
        j.add(v, String.format(Locale.ROOT, "process CPU %.2f of %d cores (%.0f %%) > %.0f %%: %s",
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
          j.add(v, String.format(Locale.ROOT, "achieved %.2f req/s = %.1f %% of the %.2f req/s scheduled < %.0f %%: "
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
    return new ClientHealth(j.verdict, j.reasons(), floor(m), Optional.of(m));
  }

  /**
   * The measurement floor of some figures: the largest of hiccup p99, longest GC pause, probe p99s and
   * the judged send lag p99.
   */
  static long floor(ClientMeasurements m) {
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
    return measurements.map(m -> evaluate(m, thresholds)).orElse(this);
  }

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
    return new ClientHealth(verdict, verdict.isWarning() ? List.copyOf(reasons) : List.of(), floor, Optional.empty());
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
    private final List<String> bound = new ArrayList<>();
    private final List<String> degraded = new ArrayList<>();

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
      List<String> all = new ArrayList<>(bound);
      all.addAll(degraded);
      return all;
    }
  }
}
