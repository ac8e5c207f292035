package io.infermark.core.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProbesAndMonitorTest {

  private static final long MS = 1_000_000;

  @Test
  void aLoopThatNeverRunsItsProbeTaskIsRecordedAsWaitingUntilTheStop() throws Exception {
    CountDownLatch handedOver = new CountDownLatch(1);
    ConcurrentLinkedQueue<Runnable> held = new ConcurrentLinkedQueue<>();
    LoopLag probe = LoopLag.of("stuck loop", r -> {
      held.add(r);
      handedOver.countDown();
    });
    Probe.Measurement m = probe.start();
    assertThat(handedOver.await(30, TimeUnit.SECONDS)).isTrue();
    long afterHandOver = System.nanoTime();
    // A stall of a known length: the loop's task waits at least this long.
    while (System.nanoTime() - afterHandOver < 30 * MS) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }

    LatencyStats stats = m.stop();

    assertThat(held).hasSize(1); // one outstanding task at a time: a stuck loop is not flooded
    assertThat(stats.maxNanos()).isGreaterThanOrEqualTo(29 * MS); // HdrHistogram: within 1 %
    // The wait is corrected for the probes it delayed, 10 ms apart.
    assertThat(stats.samples()).isGreaterThanOrEqualTo(3);
    held.poll().run(); // runs after the stop: changes nothing
    assertThat(m.stop()).isEqualTo(stats);
  }

  @Test
  void aLoopThatRunsItsTasksAtOnceShowsPlausibleSmallLateness() throws Exception {
    CountDownLatch ran = new CountDownLatch(3);
    Probe.Measurement m = LoopLag.of("direct", r -> {
      r.run();
      ran.countDown();
    }).interval(Duration.ofMillis(1)).start();
    assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();

    LatencyStats stats = m.stop();

    assertThat(stats.samples()).isGreaterThanOrEqualTo(3);
    assertThat(stats.p50Nanos()).isLessThanOrEqualTo(stats.p99Nanos());
    assertThat(stats.p99Nanos()).isLessThanOrEqualTo(stats.maxNanos());
  }

  @Test
  void anExecutorThatRejectsEndsTheMeasurementWithoutSamples() {
    Probe.Measurement m = LoopLag.of("closed", r -> {
      throw new RejectedExecutionException("shut down");
    }).start();

    assertThat(m.stop()).isEqualTo(LatencyStats.EMPTY);
  }

  @Test
  void concurrentCollectorCyclesAreNotPauses() {
    assertThat(GcPauseListener.isPause("G1 Young Generation", "end of minor GC")).isTrue();
    assertThat(GcPauseListener.isPause("G1 Old Generation", "end of major GC")).isTrue();
    assertThat(GcPauseListener.isPause("ZGC Pauses", "end of GC pause")).isTrue();
    assertThat(GcPauseListener.isPause("G1 Concurrent GC", "end of concurrent GC pause")).isFalse();
    assertThat(GcPauseListener.isPause("ZGC Cycles", "end of GC cycle")).isFalse();
    assertThat(GcPauseListener.isPause("Shenandoah Cycles", "end of GC cycle")).isFalse();
  }

  @Test
  void aMonitorCollectsHiccupsCpuGcAndItsProbesAndStopsOnce() throws Exception {
    CountDownLatch probed = new CountDownLatch(2);
    ClientHealthMonitor monitor = ClientHealthMonitor.builder().probe(LoopLag.of("direct", r -> {
      r.run();
      probed.countDown();
    }).interval(Duration.ofMillis(1))).start();
    assertThat(probed.await(30, TimeUnit.SECONDS)).isTrue();
    // The meter records a sleep once it ends: under two CPU hogs its thread had not finished one when the probe
    // was done (0 samples once). Wait for its first, bounded.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (monitor.hiccupsSoFar().isEmpty() && System.nanoTime() - deadline < 0) {
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    System.gc(); // a pause to count (a full collection pauses in every stop-the-world collector)

    ClientMeasurements m = monitor.stop();

    assertThat(m.wallNanos()).isPositive();
    assertThat(m.hiccup().samples()).isPositive();
    assertThat(m.probes()).extracting(ProbeReading::name).containsExactly("direct");
    assertThat(m.probes().get(0).lateness().samples()).isGreaterThanOrEqualTo(2);
    assertThat(m.cpu().wallNanos()).isEqualTo(m.wallNanos());
    assertThat(m.cpu().availableProcessors()).isEqualTo(Runtime.getRuntime().availableProcessors());
    if (m.cpu().coresUsed().isPresent()) { // HotSpot reports process CPU time
      assertThat(m.cpu().coresUsed().getAsDouble()).isPositive();
      assertThat(m.cpu().shareOfCores().getAsDouble())
          .isEqualTo(m.cpu().coresUsed().getAsDouble() / m.cpu().availableProcessors());
    }
    assertThat(m.gc().maxNanos()).isLessThanOrEqualTo(m.gc().totalNanos());
    assertThat(m.sends()).isEqualTo(SendFigures.NONE);
    assertThat(monitor.stop()).isSameAs(m);
    ClientHealth health = ClientHealth.evaluate(m, HealthThresholds.defaults());
    assertThat(health.floorNanos()).isEqualTo(List.of(m.hiccup().p99Nanos(), m.gc().maxNanos(),
        m.probes().get(0).lateness().p99Nanos()).stream().mapToLong(Long::longValue).max().getAsLong());
  }

  @Test
  void aReducedMonitorRunsNoProbeAndSaysSoAndAnOffOneRunsNothingAndSaysSo() {
    java.util.concurrent.atomic.AtomicInteger probed = new java.util.concurrent.atomic.AtomicInteger();
    ClientHealthMonitor reduced = ClientHealthMonitor.builder().monitoring(ClientMonitoring.REDUCED)
        .probe(LoopLag.of("direct", r -> {
          probed.incrementAndGet();
          r.run();
        }).interval(Duration.ofMillis(1))).start();
    ClientMeasurements m = reduced.stop();
    assertThat(m.monitoring()).isEqualTo(ClientMonitoring.REDUCED);
    assertThat(m.probes()).isEmpty();
    assertThat(probed).hasValue(0);

    long hiccupThreads = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals(HiccupMeter.THREAD_NAME) && t.isAlive()).count();
    ClientHealthMonitor off = ClientHealthMonitor.builder().monitoring(ClientMonitoring.OFF).start();
    assertThat(Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals(HiccupMeter.THREAD_NAME) && t.isAlive()).count())
        .as("no meter thread started").isLessThanOrEqualTo(hiccupThreads);
    ClientHealth h = off.health(io.infermark.core.capture.ScheduleStats.of(List.of(), java.util.OptionalDouble.empty()),
        io.infermark.core.load.LoadProfile.concurrency(1).requests(1), HealthThresholds.defaults());
    assertThat(h.verdict()).isEqualTo(HealthVerdict.UNMEASURED);
    assertThat(h.reasons()).containsExactly("the client's monitors were off (ClientMonitoring.OFF, --client-monitors "
        + "off): nothing says whether the client kept up");
    assertThat(off.stop().monitoring()).isEqualTo(ClientMonitoring.OFF);
  }
}
