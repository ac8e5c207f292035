package io.infermark.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.ClientMeasurements;
import io.infermark.core.health.HealthThresholds;
import io.infermark.core.health.HealthVerdict;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.Prompt;
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
    // The verdict is the defaults' verdict on the figures it carries, whatever this machine's load.
    assertThat(h.reevaluate(HealthThresholds.defaults())).isEqualTo(h);
    assertThat(h.verdict()).isIn(HealthVerdict.OK, HealthVerdict.DEGRADED, HealthVerdict.CLIENT_BOUND);
    assertThat(h.reasons().isEmpty()).isEqualTo(h.verdict() == HealthVerdict.OK);
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

  @Test
  void theBenchmarksThresholdsJudgeTheRun() {
    Benchmark base = Benchmark.target(OneTokenTarget.INSTANCE).prompts(PROMPT)
        .load(LoadProfile.concurrency(1).requests(20));
    // Any run uses some CPU: every run is client-bound by these limits. (Not the hiccup limits: a run
    // shorter than the meter's 1 ms sleep has no hiccup sample to judge.)
    HealthThresholds impossible = HealthThresholds.builder().cpuShare(1e-12, 1e-12).build();
    HealthThresholds anything = HealthThresholds.builder().hiccupP99(Duration.ofHours(1), Duration.ofHours(1))
        .cpuShare(1, 1).gcShare(1, 1).gcMaxPause(Duration.ofHours(1)).build();

    RunResult strict = base.healthThresholds(impossible).run();
    RunResult lenient = base.healthThresholds(anything).run();

    if (strict.clientHealth().measurements().orElseThrow().cpu().coresUsed().isPresent()) { // HotSpot: always
      assertThat(strict.clientHealth().verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
      assertThat(strict.clientHealth().reasons()).anyMatch(r -> r.startsWith("process CPU "));
      assertThat(strict.toString()).endsWith(", client CLIENT_BOUND]");
    }
    assertThat(lenient.clientHealth().verdict()).isEqualTo(HealthVerdict.OK);
  }

  @Test
  void aResultBuiltByHandIsUnmeasured() {
    RunResult run = Benchmark.target(OneTokenTarget.INSTANCE).prompts(PROMPT).run();
    RunResult byHand = new RunResult(run.records(), true, run.startedAt(), run.originNanos(), run.durationNanos(),
        run.target(), run.load(), run.params(), run.promptCount(), run.environment(), run.schedule());

    assertThat(byHand.clientHealth()).isEqualTo(ClientHealth.UNMEASURED);
    assertThat(byHand.withClientHealth(run.clientHealth()).clientHealth()).isEqualTo(run.clientHealth());
  }
}
