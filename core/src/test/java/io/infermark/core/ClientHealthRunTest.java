package io.infermark.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.ClientMeasurements;
import io.infermark.core.health.HealthThresholds;
import io.infermark.core.health.HealthVerdict;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.Prompt;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every run measures its client; the figures are populated and agree with each other and with the run. */
class ClientHealthRunTest {

  private static final Prompt PROMPT = Prompt.user("hello");

  @Test
  void aClosedLoopRunCarriesMeasuredConsistentClientHealth() {
    RunResult run = Benchmark.target(OneTokenTarget.INSTANCE).prompts(PROMPT)
        .load(LoadProfile.concurrency(2).requests(200)).run();

    ClientHealth h = run.clientHealth();
    assertThat(h.isMeasured()).isTrue();
    ClientMeasurements m = h.measurements().orElseThrow();
    // The monitor starts before the origin and stops after the last request ended.
    assertThat(m.wallNanos()).isGreaterThanOrEqualTo(run.durationNanos());
    assertThat(m.hiccup().p50Nanos()).isLessThanOrEqualTo(m.hiccup().p99Nanos());
    assertThat(m.hiccup().p99Nanos()).isLessThanOrEqualTo(m.hiccup().maxNanos());
    assertThat(m.sends().judged()).as("a closed loop has no schedule to be late for").isFalse();
    assertThat(m.sends().sent()).isEqualTo(run.schedule().sent());
    assertThat(h.floorNanos()).isEqualTo(Math.max(m.hiccup().p99Nanos(), m.gc().maxNanos()));
    if (java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc/self/task"))) {
      // On Linux the kernel's run-queue account of the client's threads is read: the hiccup meter's at least.
      assertThat(m.runQueue().isMeasured()).isTrue();
      assertThat(m.runQueue().threads()).isGreaterThanOrEqualTo(1);
    }
    // The verdict is the defaults' verdict on the figures it carries, whatever this machine's load.
    assertThat(h.reevaluate(HealthThresholds.defaults())).isEqualTo(h);
    assertThat(h.verdict()).isIn(HealthVerdict.OK, HealthVerdict.DEGRADED, HealthVerdict.CLIENT_BOUND);
    assertThat(h.reasons().isEmpty()).isEqualTo(h.verdict() == HealthVerdict.OK);
    // The error bound is set beside what the run measured: TTFT and E2E of its 200 one-token requests.
    assertThat(h.bounds()).extracting(io.infermark.core.health.MetricBound::metric).containsExactly("TTFT", "E2E");
    assertThat(h.bounds()).allSatisfy(b -> {
      assertThat(b.samples()).isEqualTo(200);
      assertThat(b.boundNanos()).isEqualTo(h.floorNanos());
    });
  }

  @Test
  void anOpenLoopRunJudgesItsSendLagAndRateIntoTheFloor() {
    RunResult run = Benchmark.target(OneTokenTarget.INSTANCE).prompts(PROMPT)
        .load(LoadProfile.constantRate(500).requests(100)).run();

    ClientMeasurements m = run.clientHealth().measurements().orElseThrow();
    assertThat(m.sends().judged()).isTrue();
    assertThat(m.sends().lagP99Nanos()).isEqualTo(run.schedule().lagP99Nanos());
    assertThat(m.sends().scheduledRate().getAsDouble()).isEqualTo(run.schedule().scheduledRate());
    assertThat(m.sends().achievedRate()).isEqualTo(run.schedule().achievedRate());
    assertThat(run.clientHealth().floorNanos()).isGreaterThanOrEqualTo(Math.round(run.schedule().lagP99Nanos()))
        .isGreaterThanOrEqualTo(m.hiccup().p99Nanos());
  }

  /** The JVM's CPU time, ns; -1 where the JVM does not report it. */
  private static long processCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime() : -1;
  }

  @Test
  void theBenchmarksThresholdsJudgeTheRun() {
    // A request that works until the process's CPU time has visibly moved (the OS counts it in 10 ms
    // ticks), so the hiccup meter has slept and woken many times meanwhile.
    Target working = (request, observer, cancellation) -> {
      long start = processCpuNanos();
      while (start >= 0 && processCpuNanos() < start + 20_000_000) {
        Thread.onSpinWait();
      }
      OneTokenTarget.INSTANCE.execute(request, observer, cancellation);
    };
    Benchmark base = Benchmark.target(working).prompts(PROMPT).load(LoadProfile.concurrency(1).requests(1));
    // No sleep ends within a nanosecond of its time: any hiccup sample makes a run client-bound by these, with an
    // error bound counted as material however small a share of the latencies it is.
    HealthThresholds impossible = HealthThresholds.builder().hiccupP99(Duration.ofNanos(1), Duration.ofNanos(1))
        .materialErrorShare(Double.MIN_VALUE).build();
    HealthThresholds anything = HealthThresholds.builder().hiccupP99(Duration.ofHours(1), Duration.ofHours(1))
        .cpuShare(1, 1).runQueueWait(1e9).gcShare(1, 1).gcMaxPause(Duration.ofHours(1)).build();

    RunResult strict = base.healthThresholds(impossible).run();
    RunResult lenient = base.healthThresholds(anything).run();

    assertThat(strict.clientHealth()).isEqualTo(strict.clientHealth().reevaluate(impossible));
    if (!strict.clientHealth().measurements().orElseThrow().hiccup().isEmpty()) {
      assertThat(strict.clientHealth().verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
      assertThat(strict.clientHealth().reasons()).anyMatch(r -> r.startsWith("hiccup p99 "));
      assertThat(strict.toString()).endsWith(", client CLIENT_BOUND]");
    }
    assertThat(lenient.clientHealth().verdict()).isEqualTo(HealthVerdict.OK);
    assertThat(lenient.clientHealth()).isEqualTo(lenient.clientHealth().reevaluate(anything));
  }

  @Test
  void aResultBuiltByHandIsUnmeasured() {
    RunResult run = Benchmark.target(OneTokenTarget.INSTANCE).prompts(PROMPT).run();
    RunResult byHand = RunResult.builder()
        .records(run.records())
        .startedAt(run.startedAt())
        .originNanos(run.originNanos())
        .durationNanos(run.durationNanos())
        .target(run.target())
        .load(run.load())
        .params(run.params())
        .promptCount(run.promptCount())
        .environment(run.environment())
        .schedule(run.schedule())
        .build();

    assertThat(byHand.clientHealth()).isEqualTo(ClientHealth.UNMEASURED);
    assertThat(byHand.withClientHealth(run.clientHealth()).clientHealth()).isEqualTo(run.clientHealth());
  }
}
