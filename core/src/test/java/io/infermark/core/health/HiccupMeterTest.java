package io.infermark.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class HiccupMeterTest {

  private static final long MS = 1_000_000;

  /** A clock that a scripted sleeper moves: each sleep takes the asked time plus the next scripted lateness. */
  private static final class ScriptedSleep {
    long now = 5_000 * MS;
    final Deque<Long> lateness = new ArrayDeque<>();

    void sleep(long nanos) {
      now += nanos + lateness.removeFirst();
    }
  }

  private static HiccupMeter scripted(ScriptedSleep s, long... latenessNanos) {
    for (long l : latenessNanos) {
      s.lateness.add(l);
    }
    return new HiccupMeter(() -> s.now, s::sleep, MS);
  }

  @Test
  void recordsHowLateEachSleepEnded() {
    ScriptedSleep s = new ScriptedSleep();
    long[] late = new long[100];
    java.util.Arrays.fill(late, 100_000); // 0.1 ms late every time
    HiccupMeter meter = scripted(s, late);
    for (int i = 0; i < 100; i++) {
      meter.sampleOnce();
    }

    LatencyStats stats = meter.stop();

    assertThat(stats.samples()).isEqualTo(100);
    // HdrHistogram with two significant digits: within 1 %.
    assertThat(stats.p50Nanos()).isBetween(99_000L, 101_000L);
    assertThat(stats.maxNanos()).isBetween(99_000L, 101_000L);
  }

  @Test
  void aStallCountsTheSamplesItSwallowedAsJHiccupDoes() {
    ScriptedSleep s = new ScriptedSleep();
    long[] late = new long[96];
    java.util.Arrays.fill(late, 50_000);
    late[50] = 5 * MS; // one 5 ms stall among 0.05 ms wake-ups
    HiccupMeter meter = scripted(s, late);
    for (int i = 0; i < 96; i++) {
      meter.sampleOnce();
    }

    LatencyStats stats = meter.stop();

    // The stall is recorded as 5 ms, and the 1 ms samples it prevented as 4, 3, 2 and 1 ms.
    assertThat(stats.samples()).isEqualTo(100);
    assertThat(stats.maxNanos()).isBetween(4_950_000L, 5_050_000L);
    assertThat(stats.p99Nanos()).isBetween(3_960_000L, 4_040_000L);
    assertThat(stats.p50Nanos()).isBetween(49_500L, 50_500L);
  }

  @Test
  void anEarlyWakeUpIsNotNegativeLateness() {
    ScriptedSleep s = new ScriptedSleep();
    HiccupMeter meter = scripted(s, -200_000, 0);
    meter.sampleOnce();
    meter.sampleOnce();

    assertThat(meter.stop()).isEqualTo(new LatencyStats(2, 0, 0, 0, 0));
  }

  @Test
  void stopIsFinalAndIdempotent() {
    ScriptedSleep s = new ScriptedSleep();
    HiccupMeter meter = scripted(s, 300_000, 300_000);
    meter.sampleOnce();
    LatencyStats first = meter.stop();
    meter.sampleOnce(); // a sleep that ends after the stop is not recorded

    assertThat(meter.stop()).isEqualTo(first);
    assertThat(meter.snapshot()).isEqualTo(first);
    assertThat(meter.isRunning()).isFalse();
    assertThat(first.samples()).isEqualTo(1);
  }

  @Test
  void aRealMeterRecordsOnItsOwnDaemonThreadUntilStopped() {
    HiccupMeter meter = HiccupMeter.start(Duration.ofMillis(1));
    Thread thread = findThread(HiccupMeter.THREAD_NAME);
    assertThat(thread.isDaemon()).isTrue();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (meter.snapshot().samples() < 20 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(MS); // waits for the meter's own samples, not for a guessed time
    }

    LatencyStats stats = meter.stop();

    // Structure, not machine speed: enough samples, ordered percentiles, non-negative lateness.
    assertThat(stats.samples()).isGreaterThanOrEqualTo(20);
    assertThat(stats.p50Nanos()).isGreaterThanOrEqualTo(0).isLessThanOrEqualTo(stats.p99Nanos());
    assertThat(stats.p99Nanos()).isLessThanOrEqualTo(stats.p999Nanos());
    assertThat(stats.p999Nanos()).isLessThanOrEqualTo(stats.maxNanos());
    assertThat(thread.isAlive()).as("the meter's thread ends at stop").isFalse();
    assertThat(meter.resolution()).isEqualTo(Duration.ofMillis(1));
  }

  /** A scripted sleeper that also moves a CPU clock by {@code cpuShare} of each sleep, as a process of that load. */
  private static final class LoadedSleep {
    long now = 5_000 * MS;
    long cpu;
    double cpuShare;
    long lateness;

    void sleep(long nanos) {
      now += nanos + lateness;
      cpu += Math.round((nanos + lateness) * cpuShare);
    }
  }

  @Test
  void anAdaptiveMeterWakesLessOftenAsTheProcessIdlesAndWeighsEachSampleByItsPeriod() {
    LoadedSleep s = new LoadedSleep();
    HiccupMeter meter = new HiccupMeter(() -> s.now, s::sleep, MS, 10, () -> s.cpu);
    s.cpuShare = 0.02; // a nearly idle process: 2 % of a core
    s.lateness = 100_000;
    for (int i = 0; i < 600; i++) {
      meter.sampleOnce();
    }
    long idleWakes = meter.wakes();

    // The first 250 ms window ran at 1 ms (251 wakes), the rest at 10 ms: the meter chose 10 for 2 % of a core.
    assertThat(meter.meanPeriod().toNanos()).isGreaterThan(5 * MS);
    s.cpuShare = 0.8; // the client gets busy: back to every millisecond within a window
    long busyStart = s.now;
    for (int i = 0; i < 600; i++) {
      meter.sampleOnce();
    }
    LatencyStats stats = meter.stop();

    assertThat(idleWakes).isEqualTo(600);
    // Every sample counts for the base periods it slept: the total is the time asked for, in milliseconds.
    long askedMs = (s.now - 5_000 * MS - meter.wakes() * s.lateness) / MS;
    assertThat(stats.samples()).isEqualTo(askedMs);
    assertThat(stats.p50Nanos()).isBetween(99_000L, 101_000L);
    assertThat((s.now - busyStart) / 600).as("mean period once busy").isLessThan(2 * MS);
  }

  @Test
  void anAdaptiveMetersStallCountsItsSwallowedPeriodsAtTheirWeight() {
    LoadedSleep s = new LoadedSleep();
    HiccupMeter meter = new HiccupMeter(() -> s.now, s::sleep, MS, 10, () -> s.cpu);
    s.cpuShare = 0; // idle: after the first window, 10 ms periods
    for (int i = 0; i < 300; i++) {
      meter.sampleOnce();
    }
    LatencyStats before = meter.snapshot();
    s.lateness = 35 * MS; // one 35 ms stall at a 10 ms period: recorded as 35, 25 and 15 ms, each for 10 periods
    meter.sampleOnce();
    LatencyStats after = meter.stop();

    assertThat(after.samples() - before.samples()).isEqualTo(30);
    assertThat(after.maxNanos()).isBetween(34_650_000L, 35_350_000L);
  }

  @Test
  void aResolutionMustBePositive() {
    assertThatThrownBy(() -> HiccupMeter.start(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be > 0");
  }

  private static Thread findThread(String name) {
    // The meter starts its thread before start() returns; this thread is the newest of that name.
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive())
        .max(java.util.Comparator.comparingLong(Thread::getId)).orElseThrow();
  }
}
