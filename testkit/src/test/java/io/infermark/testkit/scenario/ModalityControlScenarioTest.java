package io.infermark.testkit.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.control.ControlSignal;
import io.infermark.core.control.ControlStep;
import io.infermark.core.control.DualCalibration;
import io.infermark.core.control.Knob;
import io.infermark.core.control.KnobController;
import io.infermark.core.control.KnobStep;
import io.infermark.core.control.PrometheusGauge;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.target.OpenAiTarget;
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
  void dualCalibrationRaisesTheRateTowardTheTokenFloorAndNeverOffersMoreThanTheCeiling() {
    try (Simulator sim = Simulator.start(fixed());
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      // The seed's numbers: QPS <= 1,200 and TPS >= 850, with 16 tokens a request (about 56 requests/s).
      DualCalibration cal = DualCalibration.of(1200, 850).initialRate(40);
      RunResult run = Benchmark.target(target).prompts(Prompt.user("calibrate")).params(SIXTEEN)
          .load(LoadProfile.controlled(cal.controller()).duration(Duration.ofSeconds(4))).run();
      DualCalibration.Verdict v = cal.verdict(run, Duration.ofSeconds(2));
      LOG.info("{}; last rate {}", v, run.control().get(run.control().size() - 1));
      // 40 requests/s x 16 tokens = 640 tokens/s, under the 892.5 target: the controller raises the rate.
      assertThat(run.control()).extracting(ControlStep::rate).anyMatch(r -> r > 40);
      assertThat(run.control()).extracting(ControlStep::rate).allMatch(r -> r <= 1200);
      assertThat(v.qps()).isLessThanOrEqualTo(1200);
      assertThat(v.pass()).isEqualTo(v.qps() <= 1200 && v.tps() >= 850);
      // Hand computation of the verdict's TPS: tokens of the requests sent after 2 s over the 2 s left.
      long tokens = run.measured().stream().filter(r -> r.wasSent() && r.sendNanos() >= 2_000_000_000L)
          .filter(RequestRecord::succeeded).mapToLong(RequestRecord::outputTokens).sum();
      assertThat(v.tps()).isEqualTo(tokens / 2.0);
    }
  }

  @Test
  void aTokenFloorOutOfReachUnderTheCeilingPinsTheRateAndFailsWithTheReason() {
    try (Simulator sim = Simulator.start(fixed());
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      // At most 20 requests/s x 16 tokens = 320 tokens/s < 850.
      DualCalibration cal = DualCalibration.of(20, 850).initialRate(10);
      RunResult run = Benchmark.target(target).prompts(Prompt.user("calibrate")).params(SIXTEEN)
          .load(LoadProfile.controlled(cal.controller()).duration(Duration.ofSeconds(3))).run();
      DualCalibration.Verdict v = cal.verdict(run, Duration.ofMillis(1500));
      LOG.info("{}", v);
      assertThat(run.control().get(run.control().size() - 1).rate()).isEqualTo(20.0);
      assertThat(v.pass()).isFalse();
      assertThat(v.reasons()).singleElement().asString().contains("unreachable under the QPS ceiling")
          .contains("16.0 tokens per request");
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
