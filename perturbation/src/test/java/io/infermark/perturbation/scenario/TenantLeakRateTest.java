package io.infermark.perturbation.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.perturbation.TestRecords;
import io.infermark.testkit.simulator.PromptBehaviour;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tenant isolation judged by a leak-rate threshold (seed 003 §4.3: below 0.01 %) as well as zero tolerance. */
class TenantLeakRateTest {

  private final TenantIsolationKit kit = TenantIsolationKit.of(List.of("acme", "globex"), "What is my plan?", 3);

  private List<RequestRecord> responses(int n, int leaking) {
    List<Prompt> p = kit.prompts();
    String acme = kit.canaries().get("acme");
    List<RequestRecord> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      // Odd requests are globex's; the first `leaking` of them carry acme's canary.
      Prompt prompt = p.get(i % 2);
      String text = i % 2 == 1 && i / 2 < leaking ? "your code " + acme : "basic plan";
      out.add(TestRecords.ok(i, prompt.tags(), text, 1, 2, 1));
    }
    return out;
  }

  @Test
  void aThresholdPassesOnlyWhenTheUpperBoundIsBelowItWhichTakesAboutThreeOverTheRateResponses() {
    TenantIsolationKit below = kit.leakRateBelow(0.0001);
    // No leak in 40,000: upper bound 1 - 0.05^(1/40000) = 7.489e-5 < 1e-4.
    IsolationVerdict many = below.verdict(responses(40_000, 0));
    assertThat(many.leakRateUpper95()).isCloseTo(1 - Math.pow(0.05, 1 / 40_000.0), within(1e-15))
        .isCloseTo(7.489e-5, within(1e-8));
    assertThat(many.pass()).isTrue();
    assertThat(many.responsesNeeded()).isEqualTo(29_956); // ceil(ln 0.05 / ln 0.9999)
    // No leak in 20,000: the upper bound 1.498e-4 does not show < 0.01 %.
    IsolationVerdict few = below.verdict(responses(20_000, 0));
    assertThat(few.leakRateUpper95()).isCloseTo(1.4978e-4, within(1e-8));
    assertThat(few.pass()).isFalse();
    assertThat(few.toString()).contains("29956 responses needed");
    // One leak in 40,000: observed 2.5e-5, but the Clopper-Pearson bound (beta(2, 39999) at 0.95) is 1.186e-4.
    IsolationVerdict one = below.verdict(responses(40_000, 1));
    assertThat(one.leakRate()).isEqualTo(2.5e-5);
    assertThat(one.leakRateUpper95()).isCloseTo(1.1860e-4, within(1e-7));
    assertThat(one.pass()).isFalse();
    // Zero tolerance fails on that one leak whatever the count, and passes without one.
    assertThat(kit.verdict(responses(40_000, 1)).pass()).isFalse();
    assertThat(kit.verdict(responses(20_000, 0)).pass()).isTrue();
  }

  @Test
  void againstTheSimulatorNoCanaryLeaksButAFewHundredResponsesCannotShowARateBelowOneInTenThousand() {
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
        .interTokenInterval(Duration.ofMillis(1)).build());
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      RunResult run = Benchmark.target(target).prompts(kit.prompts())
          .params(GenerationParams.builder().maxTokens(8).build()).captureText(true)
          .load(LoadProfile.concurrency(8).requests(300)).run();
      IsolationVerdict zero = kit.verdict(run);
      IsolationVerdict rate = kit.leakRateBelow(0.0001).verdict(run);
      assertThat(zero.pass()).isTrue();
      assertThat(zero.judged()).isEqualTo(300);
      assertThat(rate.leakingResponses()).isZero();
      assertThat(rate.leakRateUpper95()).isCloseTo(1 - Math.pow(0.05, 1 / 300.0), within(1e-12)); // ~0.99 %
      assertThat(rate.pass()).isFalse();
    }
  }

  @Test
  void aServerThatLeaksThePreviousSessionsContextFailsWithEveryLeakNamed() {
    // PromptBehaviour.leakPreviousContext(): each response begins with the codes of the system message of the
    // request served before it. One stream, the prompts alternating acme, globex: the first response has no
    // predecessor, each of the other 39 carries the other tenant's canary.
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
        .interTokenInterval(Duration.ofMillis(1)).promptBehaviour(PromptBehaviour.leakPreviousContext()).build());
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      RunResult run = Benchmark.target(target).prompts(kit.prompts())
          .params(GenerationParams.builder().maxTokens(8).build()).captureText(true)
          .load(LoadProfile.concurrency(1).requests(40)).run();
      IsolationVerdict zero = kit.verdict(run);
      assertThat(zero.pass()).isFalse();
      assertThat(zero.judged()).isEqualTo(40);
      assertThat(zero.leakingResponses()).isEqualTo(39);
      assertThat(zero.leaks()).hasSize(39).allSatisfy(l -> assertThat(l.owner()).isNotEqualTo(l.recipient()));
      assertThat(zero.leaks()).extracting(Leak::index).containsExactlyElementsOf(
          java.util.stream.LongStream.range(1, 40).boxed().toList());
      // 39 of 40: the observed rate is 97.5 %, far above 0.01 %.
      assertThat(kit.leakRateBelow(0.0001).verdict(run).pass()).isFalse();
    }
  }
}
