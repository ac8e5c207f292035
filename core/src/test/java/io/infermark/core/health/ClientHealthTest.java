package io.infermark.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.load.RateLimits;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ClientHealthTest {

  private static final long MS = 1_000_000;
  private static final long WALL = 10_000 * MS;
  private static final HealthThresholds DEFAULTS = HealthThresholds.defaults();

  /** A quiet client: 0.1 ms hiccup p99, 0.4 of 2 cores, no GC, an open loop that kept its schedule. */
  private static Figures quiet() {
    return new Figures();
  }

  /** Hand-made figures, changed one at a time. */
  private static final class Figures {
    long hiccupP99 = 100_000;
    double cores = 0.4;
    GcPauses gc = GcPauses.NONE;
    SendFigures sends = new SendFigures(true, 1000, 200_000, OptionalDouble.of(100), 100);
    List<ProbeReading> probes = List.of();
    RunQueueWait runQueue = new RunQueueWait(4_000 * MS, 400 * MS, 4);

    Figures runQueue(long runMs, long waitMs) {
      runQueue = new RunQueueWait(runMs * MS, waitMs * MS, 4);
      return this;
    }

    Figures hiccupP99(long nanos) {
      hiccupP99 = nanos;
      return this;
    }

    Figures cores(double c) {
      cores = c;
      return this;
    }

    Figures gc(GcPauses g) {
      gc = g;
      return this;
    }

    Figures sends(SendFigures s) {
      sends = s;
      return this;
    }

    Figures probe(String name, long p99) {
      probes = List.of(new ProbeReading(name, new LatencyStats(100, p99 / 2, p99, p99, p99)));
      return this;
    }

    ClientMeasurements measurements() {
      LatencyStats hiccup = new LatencyStats(10_000, Math.min(50_000, hiccupP99), hiccupP99, hiccupP99, hiccupP99);
      CpuUsage cpu = new CpuUsage(OptionalLong.of(Math.round(cores * WALL)), WALL, 2, OptionalDouble.of(0.5));
      return new ClientMeasurements(WALL, hiccup, cpu, runQueue, gc, probes, sends);
    }

    ClientHealth health() {
      return ClientHealth.evaluate(measurements(), DEFAULTS);
    }
  }

  private static SendFigures rate(double achieved, double scheduled) {
    return new SendFigures(true, 1000, 200_000, OptionalDouble.of(scheduled), achieved);
  }

  private static SendFigures lag(long p99Nanos) {
    return new SendFigures(true, 1000, p99Nanos, OptionalDouble.of(100), 100);
  }

  @Test
  void aQuietClientIsOkWithItsHiccupP99AsTheFloor() {
    ClientHealth h = quiet().health();

    assertThat(h.verdict()).isEqualTo(HealthVerdict.OK);
    assertThat(h.reasons()).isEmpty();
    assertThat(h.floorNanos()).isEqualTo(200_000); // the open loop's send lag p99 beats the hiccup p99
    assertThat(h.measurements()).isPresent();
    assertThat(h.toString()).isEqualTo("ClientHealth[OK, floor 0.200 ms]");
  }

  @Test
  void hiccupP99AboveOneMillisecondDegradesAndAboveTenIsClientBound() {
    ClientHealth degraded = quiet().hiccupP99(2 * MS).health();
    ClientHealth bound = quiet().hiccupP99(12_300_000).health();

    assertThat(degraded.verdict()).isEqualTo(HealthVerdict.DEGRADED);
    assertThat(degraded.reasons()).containsExactly(
        "hiccup p99 2.00 ms > 1 ms: the client's threads could not run on time");
    assertThat(bound.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(bound.reasons()).containsExactly(
        "hiccup p99 12.3 ms > 10 ms: the client's threads could not run on time");
    assertThat(bound.floorNanos()).isEqualTo(12_300_000);
    assertThat(bound.toString()).isEqualTo("ClientHealth[CLIENT_BOUND, floor 12.300 ms: hiccup p99 12.3 ms > 10 ms: "
        + "the client's threads could not run on time]");
  }

  @Test
  void processCpuAboveSeventyPercentOfTheCoresDegradesAndAboveNinetyIsClientBound() {
    ClientHealth degraded = quiet().cores(1.5).health();
    ClientHealth bound = quiet().cores(1.9).health();

    assertThat(degraded.verdict()).isEqualTo(HealthVerdict.DEGRADED);
    assertThat(degraded.reasons()).singleElement().asString()
        .startsWith("process CPU 1.50 of 2 cores (75 %) > 70 %: ");
    assertThat(bound.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(bound.reasons()).singleElement().asString()
        .startsWith("process CPU 1.90 of 2 cores (95 %) > 90 %: the client ran out of CPU");
  }

  @Test
  void clientThreadsWaitingLongerForACoreThanTheyRanAreClientBoundAndShorterWaitsAreLeftToTheHiccupMeter() {
    ClientHealth busy = quiet().runQueue(4_000, 2_800).health();
    ClientHealth bound = quiet().runQueue(2_400, 5_600).health();

    assertThat(busy.verdict()).isEqualTo(HealthVerdict.OK);
    assertThat(bound.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(bound.reasons()).singleElement().asString()
        .startsWith("the client's threads waited 5600 ms for a core while they ran 2400 ms (2.33 per ms run) > 1.0: "
            + "other work starves the client");
    // The run-queue wait is a ratio, not a delay: it does not move the floor.
    assertThat(bound.floorNanos()).isEqualTo(busy.floorNanos());
    assertThat(ClientHealth.evaluate(bound.measurements().orElseThrow(),
        HealthThresholds.builder().runQueueWait(3).build()).verdict()).isEqualTo(HealthVerdict.OK);
  }

  @Test
  void runQueueWaitIsNotJudgedWithoutEnoughRunTimeOrWhereThePlatformDoesNotSay() {
    ClientHealth idle = quiet().runQueue(40, 400).health();
    Figures unmeasured = quiet();
    unmeasured.runQueue = RunQueueWait.UNMEASURED;

    assertThat(idle.verdict()).isEqualTo(HealthVerdict.OK);
    assertThat(unmeasured.health().verdict()).isEqualTo(HealthVerdict.OK);
    assertThat(RunQueueWait.UNMEASURED.waitPerRun()).isEmpty();
    assertThat(RunQueueWait.UNMEASURED).hasToString("RunQueueWait[unmeasured]");
    assertThat(new RunQueueWait(2_400 * MS, 5_600 * MS, 3).waitPerRun()).hasValueCloseTo(2.333, within(0.001));
  }

  @Test
  void anOpenLoopBelowNinetyNinePercentOfItsScheduleDegradesAndBelowNinetyIsClientBound() {
    ClientHealth degraded = quiet().sends(rate(95, 100)).health();
    ClientHealth bound = quiet().sends(rate(81.24, 100)).health();

    assertThat(degraded.verdict()).isEqualTo(HealthVerdict.DEGRADED);
    assertThat(degraded.reasons()).containsExactly("achieved 95.00 req/s = 95.0 % of the 100.00 req/s scheduled "
        + "< 99 %: the client did not send as fast as asked");
    assertThat(bound.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(bound.reasons()).containsExactly("achieved 81.24 req/s = 81.2 % of the 100.00 req/s scheduled "
        + "< 90 %: the client did not send as fast as asked");
    // Sending faster than scheduled is not the client falling behind.
    assertThat(quiet().sends(rate(104, 100)).health().verdict()).isEqualTo(HealthVerdict.OK);
  }

  @Test
  void sendLagP99AboveOneMillisecondDegradesAndAboveTenIsClientBoundAndSetsTheFloor() {
    ClientHealth degraded = quiet().sends(lag(3 * MS)).health();
    ClientHealth bound = quiet().sends(lag(23_400_000)).health();

    assertThat(degraded.verdict()).isEqualTo(HealthVerdict.DEGRADED);
    assertThat(degraded.reasons()).containsExactly(
        "send lag p99 3.00 ms > 1 ms: requests left later than their schedule said");
    assertThat(bound.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(bound.reasons()).containsExactly(
        "send lag p99 23.4 ms > 10 ms: requests left later than their schedule said");
    assertThat(bound.floorNanos()).isEqualTo(23_400_000);
  }

  @Test
  void sendsThatAreNotJudgedNeitherWarnNorRaiseTheFloor() {
    SendFigures closedLoop = new SendFigures(false, 1000, 50 * MS, OptionalDouble.of(100), 10);

    ClientHealth h = quiet().sends(closedLoop).health();

    assertThat(h.verdict()).isEqualTo(HealthVerdict.OK);
    assertThat(h.floorNanos()).isEqualTo(100_000);
  }

  @Test
  void aLongGcPauseDegradesAndFrequentPausesAreClientBound() {
    ClientHealth onePause = quiet().gc(new GcPauses(1, 15 * MS, 15 * MS)).health();
    ClientHealth stopped = quiet().gc(new GcPauses(400, 1_200 * MS, 3 * MS)).health();

    assertThat(onePause.verdict()).isEqualTo(HealthVerdict.DEGRADED);
    assertThat(onePause.reasons()).containsExactly(
        "GC pause of 15.0 ms > 10 ms: every client thread stopped that long");
    assertThat(onePause.floorNanos()).isEqualTo(15 * MS);
    assertThat(stopped.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(stopped.reasons()).containsExactly("GC pauses 12.0 % of the run (400, 1200 ms) > 10 %: the client "
        + "spent that share of its time stopped");
  }

  @Test
  void aProbeIsJudgedLikeTheHiccupMeterAndNamed() {
    ClientHealth h = quiet().probe("event loop", 4 * MS).health();

    assertThat(h.verdict()).isEqualTo(HealthVerdict.DEGRADED);
    assertThat(h.reasons()).containsExactly("'event loop' lag p99 4.00 ms > 1 ms: its tasks waited that long to "
        + "run, so reads and stamps came late");
    assertThat(h.floorNanos()).isEqualTo(4 * MS);
  }

  @Test
  void theWorstFigureDecidesAndClientBoundReasonsComeFirst() {
    ClientHealth h = quiet().hiccupP99(2 * MS).cores(1.95).gc(new GcPauses(1, 20 * MS, 20 * MS)).health();

    assertThat(h.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(h.reasons()).hasSize(3);
    assertThat(h.reasons().get(0)).startsWith("process CPU 1.95 of 2 cores");
    assertThat(h.reasons().get(1)).startsWith("hiccup p99 2.00 ms > 1 ms");
    assertThat(h.reasons().get(2)).startsWith("GC pause of 20.0 ms");
    assertThat(h.floorNanos()).isEqualTo(20 * MS); // the longest of hiccup p99, GC pause, send lag p99
    assertThat(h.isClientBound()).isTrue();
    assertThat(h.isWarning()).isTrue();
  }

  @Test
  void otherThresholdsJudgeTheSameFiguresAgain() {
    ClientHealth h = quiet().hiccupP99(2 * MS).health();
    HealthThresholds lenient = HealthThresholds.builder().hiccupP99(Duration.ofMillis(5), Duration.ofMillis(50))
        .build();
    HealthThresholds strict = HealthThresholds.builder().hiccupP99(Duration.ofMillis(1), Duration.ofMillis(1))
        .build();

    assertThat(h.reevaluate(lenient).verdict()).isEqualTo(HealthVerdict.OK);
    assertThat(h.reevaluate(strict).verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(ClientHealth.UNMEASURED.reevaluate(strict)).isSameAs(ClientHealth.UNMEASURED);
  }

  @Test
  void unmeasuredHealthNeitherWarnsNorHasAFloor() {
    ClientHealth u = ClientHealth.UNMEASURED;

    assertThat(u.verdict()).isEqualTo(HealthVerdict.UNMEASURED);
    assertThat(u.isMeasured()).isFalse();
    assertThat(u.isWarning()).isFalse();
    assertThat(u.isClientBound()).isFalse();
    assertThat(u.floorNanos()).isZero();
    assertThat(u.toString()).isEqualTo("ClientHealth[UNMEASURED]");
  }

  @Test
  void theWorstOfSeveralRunsKeepsTheWorstVerdictEveryReasonAndTheLargestFloor() {
    ClientHealth ok = quiet().health();
    ClientHealth degraded = quiet().hiccupP99(2 * MS).health();
    ClientHealth bound = quiet().cores(1.9).health();

    ClientHealth worst = ClientHealth.worstOf(List.of(ok, degraded, bound, ClientHealth.UNMEASURED));

    assertThat(worst.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(worst.reasons()).containsExactlyInAnyOrder(degraded.reasons().get(0), bound.reasons().get(0));
    assertThat(worst.floorNanos()).isEqualTo(2 * MS);
    assertThat(worst.measurements()).isEmpty();
    assertThat(ClientHealth.worstOf(List.of())).isEqualTo(ClientHealth.UNMEASURED);
    assertThat(ClientHealth.worstOf(List.of(ok, ClientHealth.UNMEASURED)).verdict()).isEqualTo(HealthVerdict.OK);
  }

  @Test
  void aWarningVerdictNeedsAReason() {
    assertThatThrownBy(() -> new ClientHealth(HealthVerdict.DEGRADED, List.of(), 0, Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs at least one reason");
  }

  @Test
  void thresholdsRejectADegradedLimitBeyondItsClientBoundLimit() {
    assertThatThrownBy(() -> HealthThresholds.builder().hiccupP99(Duration.ofMillis(20), Duration.ofMillis(10))
        .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hiccup p99");
    assertThatThrownBy(() -> HealthThresholds.builder().cpuShare(0.95, 0.9).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CPU share");
    assertThatThrownBy(() -> HealthThresholds.builder().runQueueWait(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("run-queue wait");
    assertThatThrownBy(() -> HealthThresholds.builder().runQueueWait(Double.POSITIVE_INFINITY).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("run-queue wait");
    assertThatThrownBy(() -> HealthThresholds.builder().achievedRatio(0.8, 0.9).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("achieved-rate");
    assertThat(HealthThresholds.builder().build()).isEqualTo(HealthThresholds.defaults());
    assertThat(HealthThresholds.defaults().toString()).contains("hiccup p99 1/10 ms", "CPU 70/90 %",
        "run-queue wait -/1.0");
  }

  @Test
  void sendFiguresAreJudgedOnlyForOpenLoopsNothingDelaysOnPurpose() {
    ScheduleStats s = new ScheduleStats(OptionalDouble.of(100), 100, 97, 500, 0, 0, 0, 2 * MS, 3 * MS, 4 * MS);

    SendFigures open = SendFigures.of(s, LoadProfile.poisson(100).requests(500));
    SendFigures closed = SendFigures.of(s, LoadProfile.concurrency(4).requests(500));
    SendFigures capped = SendFigures.of(s, LoadProfile.poisson(100).requests(500).maxInFlight(8));
    SendFigures limited = SendFigures.of(s, LoadProfile.poisson(100).requests(500)
        .limits(RateLimits.none().requestsPerSecond(50)));
    SendFigures few = SendFigures.of(new ScheduleStats(OptionalDouble.of(100), 100, 50, 9, 0, 0, 0, 0, 0, 0),
        LoadProfile.poisson(100).requests(9));

    assertThat(open.judged()).isTrue();
    assertThat(open.achievedRatio().getAsDouble()).isEqualTo(0.97);
    assertThat(open.lagP99Nanos()).isEqualTo(2 * MS);
    assertThat(closed.judged()).isFalse();
    assertThat(capped.judged()).isFalse();
    assertThat(limited.judged()).isFalse();
    assertThat(closed.achievedRatio()).isEmpty();
    assertThat(few.scheduledRate()).isEmpty(); // a rate from nine sends is noise
  }

  @Test
  void theCpuShareOfARunShorterThanASecondIsNotJudged() {
    CpuUsage shortRun = new CpuUsage(OptionalLong.of(40 * MS), 20 * MS, 2, OptionalDouble.empty());
    ClientMeasurements m = new ClientMeasurements(20 * MS, LatencyStats.EMPTY, shortRun, GcPauses.NONE, List.of(),
        SendFigures.NONE);

    assertThat(shortRun.shareOfCores().getAsDouble()).isEqualTo(1.0); // 10 ms ticks: shown, not judged
    assertThat(ClientHealth.evaluate(m, DEFAULTS).verdict()).isEqualTo(HealthVerdict.OK);
  }
}
