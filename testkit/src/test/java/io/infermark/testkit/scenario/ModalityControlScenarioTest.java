package io.infermark.testkit.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.control.ControlSignal;
import io.infermark.core.control.ControlStep;
import io.infermark.core.control.Knob;
import io.infermark.core.control.PrometheusGauge;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.sweep.DualCalibration;
import io.infermark.core.sweep.KnobController;
import io.infermark.core.sweep.KnobStep;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Dual calibration and modality-aware knob control against the simulator (seed 003 §2.3). */
class ModalityControlScenarioTest {

  private static final Logger LOG = LoggerFactory.getLogger(ModalityControlScenarioTest.class);
  private static final GenerationParams SIXTEEN = GenerationParams.builder().maxTokens(16).ignoreEos(true).build();

  private static SimulatorConfig fixed() {
    return SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5)).interTokenInterval(Duration.ofMillis(1))
        .build();
  }

  @Test
  void dualCalibrationHoldsTheSeedsTransactionFloorUnderTheRequestCeiling() {
    try (Simulator sim = Simulator.start(fixed());
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      // The seed's limits at 1/40 of its rates: QPS <= 30 (1,200 / 40), TPS >= 21.25 completed transactions/s
      // (850 / 40), and its SLA as written, 99.5 % under 800 ms. (At the seed's own rates, ~900 requests/s with
      // the simulator in this JVM, a 2-core machine starves the client: DualCalibrationTest checks the verdict's
      // arithmetic on the seed's own numbers.) A request takes 5 + 15 x 1 ms here, so every one is a transaction
      // and the controller must raise the rate from 20 to about 21.25 x 1.1 = 23.375 requests/s.
      DualCalibration cal = DualCalibration.of(30, 21.25).margin(0.1).initialRate(20);
      RunResult run = Benchmark.target(target).prompts(Prompt.user("calibrate")).params(SIXTEEN)
          .load(LoadProfile.controlled(cal.controller()).duration(Duration.ofSeconds(5))).run();
      DualCalibration.Verdict v = cal.verdict(run, Duration.ofSeconds(2));
      LOG.info("{}; last rate {}; client {}", v, run.control().get(run.control().size() - 1), run.clientHealth());
      // 20 requests/s x 1 transaction each is under the 23.375 target: the controller raises the rate.
      assertThat(run.control()).extracting(ControlStep::rate).anyMatch(r -> r > 21.25);
      assertThat(run.control()).extracting(ControlStep::rate).allMatch(r -> r <= 30);
      // Hand computation of the verdict from the records: transactions (successes with E2E <= 800 ms) that
      // completed in [2 s, 5 s), over 3 s; requests sent in that window over 3 s.
      long from = 2_000_000_000L;
      long to = 5_000_000_000L;
      long transactions = run.measured().stream().filter(RequestRecord::succeeded)
          .filter(r -> r.chunks().lastTokenOffsetNanos().getAsLong() <= 800_000_000L)
          .mapToLong(r -> r.sendNanos() + r.endOffsetNanos()).filter(t -> t >= from && t < to).count();
      long sent = run.measured().stream().filter(r -> r.wasSent() && r.sendNanos() >= from && r.sendNanos() < to)
          .count();
      assertThat(v.transactions()).isEqualTo(transactions);
      assertThat(v.onTimeTps()).isEqualTo(transactions / 3.0);
      // Completed TPS (seed 003's, any latency) counts every success that completed in the window.
      long completed = run.measured().stream().filter(RequestRecord::succeeded)
          .mapToLong(r -> r.sendNanos() + r.endOffsetNanos()).filter(t -> t >= from && t < to).count();
      assertThat(v.completedTps()).isEqualTo(completed / 3.0).isGreaterThanOrEqualTo(v.onTimeTps());
      assertThat(v.qps()).isEqualTo(sent / 3.0);
      // The documented outcome: PASS, with the seed's quantity above its floor.
      assertThat(v.reasons()).isEmpty();
      assertThat(v.pass()).isTrue();
      assertThat(v.onTimeTps()).isGreaterThanOrEqualTo(21.25);
      assertThat(v.qps()).isLessThanOrEqualTo(30);
      assertThat(v.slaShare()).isGreaterThanOrEqualTo(0.995);
    }
  }

  @Test
  void aServerSlowerThanTheSlaDeliversNoTransactionsAndTheRatePinsAtTheCeiling() {
    // Every answer takes 5 + 15 x 1 ms = 20 ms, over an SLA of 10 ms: nothing is a transaction, so the
    // controller keeps raising the rate to the ceiling and the verdict fails on TPS and the SLA, while the
    // old token measure (16 tokens x ~20 requests/s = 320/s) would have counted output.
    try (Simulator sim = Simulator.start(fixed());
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      DualCalibration cal = DualCalibration.of(20, 15).sla(Duration.ofMillis(10), 0.995).initialRate(10);
      RunResult run = Benchmark.target(target).prompts(Prompt.user("calibrate")).params(SIXTEEN)
          .load(LoadProfile.controlled(cal.controller()).duration(Duration.ofSeconds(3))).run();
      DualCalibration.Verdict v = cal.verdict(run, Duration.ofMillis(1500));
      LOG.info("{}", v);
      assertThat(run.measured()).filteredOn(RequestRecord::succeeded)
          .allSatisfy(r -> assertThat(r.chunks().lastTokenOffsetNanos().getAsLong()).isGreaterThan(10_000_000L));
      assertThat(run.control().get(run.control().size() - 1).rate()).isEqualTo(20.0);
      assertThat(v.pass()).isFalse();
      assertThat(v.onTimeTps()).isZero();
      assertThat(v.completedTps()).isPositive(); // seed 003's TPS counts the slow answers: on-time TPS does not
      assertThat(v.slaShare()).isZero();
      assertThat(v.tokensPerSecond()).isPositive();
      assertThat(v.reasons()).containsExactly("on-time TPS 0.0 < 15.0 (transactions completed within 10 ms per second)",
          "SLA 0.00% of requests within 10 ms < 99.50%");
    }
  }

  /** Prompts whose length grows with each modality's items per request: 48, 12 and 2 words an item. */
  private static Workload modal(Knob image, Knob audio, Knob text) {
    return (index, intended, defaults) -> {
      StringBuilder p = new StringBuilder();
      p.append("image ".repeat(48 * image.intValue())).append("audio ".repeat(12 * audio.intValue()))
          .append("text ".repeat(2 * text.intValue()));
      return new RequestSpec(Prompt.text(p.toString()).withTag("items", image.intValue() + "/" + audio.intValue() + "/"
          + text.intValue()), RequestSpec.exactOutput(defaults, 8));
    };
  }

  private KnobController runModal(Simulator sim, OpenAiTarget target, double queueTarget, double p99Target,
      Knob image, Knob audio, Knob text) {
    Map<ControlSignal, Double> targets = new LinkedHashMap<>();
    targets.put(PrometheusGauge.of(sim.baseUrl() + "/metrics", "vllm:num_requests_waiting"), queueTarget);
    targets.put(ControlSignal.ttftP99(20), p99Target);
    KnobController control = KnobController.builder(ControlSignal.worstOf(targets), 1.0).knobs(image, audio, text)
        .interval(Duration.ofMillis(200)).build();
    RunResult run = Benchmark.target(target).workload(modal(image, audio, text))
        .load(LoadProfile.constantRate(40).duration(Duration.ofMillis(1500))).listener(control).run();
    assertThat(run.records()).allMatch(RequestRecord::succeeded);
    List<KnobStep> steps = control.trajectory();
    LOG.info("{} -> {}", control, steps.get(steps.size() - 1));
    assertThat(steps).anyMatch(s -> s.measured().isPresent());
    for (KnobStep s : steps) { // never outside the modality ranges
      assertThat(s.values().get("image")).isBetween(1.0, 8.0);
      assertThat(s.values().get("audio")).isBetween(4.0, 32.0);
      assertThat(s.values().get("text")).isBetween(16.0, 128.0);
    }
    return control;
  }

  @Test
  void itemsPerRequestPerModalityFollowQueueLengthAndP99WithinTheirRanges() {
    EngineProfile engine = EngineProfile.earlySaturation();
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().engine(engine).build());
        OpenAiTarget target = OpenAiTarget.completions(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      // A P99 TTFT target of 1 us is out of reach: at the first measurement the effort drops to 0 and
      // every modality sends its minimum items.
      Knob image = Knob.range("image", 1, 8, 4);
      Knob audio = Knob.range("audio", 4, 32, 16);
      Knob text = Knob.range("text", 16, 128, 64);
      runModal(sim, target, 1000, 1e-6, image, audio, text);
      assertThat(List.of(image.intValue(), audio.intValue(), text.intValue())).containsExactly(1, 4, 16);

      // Targets far above anything measured (queue 1,000, P99 100 s): at the first measurement the
      // relative error is about 1, so the effort is 0.5 + 0.5 x 1 + 0.5 x 1 x dt, clamped at 1: every maximum.
      Knob image2 = Knob.range("image", 1, 8, 4);
      Knob audio2 = Knob.range("audio", 4, 32, 16);
      Knob text2 = Knob.range("text", 16, 128, 64);
      runModal(sim, target, 1000, 100, image2, audio2, text2);
      assertThat(List.of(image2.intValue(), audio2.intValue(), text2.intValue())).containsExactly(8, 32, 128);
    }
  }
}
