package io.infermark.perturbation.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.pipeline.AgentSessionTarget;
import io.infermark.core.pipeline.Tool;
import io.infermark.core.pipeline.ToolStep;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A tool-call timeout cascade in agent sessions against the simulator (seed 003 §4.4). */
class ToolCascadeKitTest {

  private static final GenerationParams EIGHT = GenerationParams.builder().maxTokens(8).ignoreEos(true).build();

  /** A tool that answers {@code result} after {@code ms} (slow tasks: {@code slowMs}), interruptibly. */
  private static Tool tool(String result, long ms, long slowMs) {
    return input -> {
      Thread.sleep(input.contains("slow") ? slowMs : ms);
      return result;
    };
  }

  private static RunResult run(AgentSessionTarget agent, ToolCascadeKit kit) {
    return Benchmark.target(agent).prompts(kit.prompts(List.of("Plan a fast day", "Plan a slow day")))
        .params(EIGHT).load(LoadProfile.concurrency(4).requests(24).warmupRequests(4)).run();
  }

  @Test
  void aTimedOutToolFallsBackAndTheSessionPaysTheTimeoutPlusTheFallback() {
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(1)).build();
    try (Simulator sim = Simulator.start(config);
        AgentSessionTarget agent = AgentSessionTarget.builder(OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model())
                .build())
            .step(ToolStep.of("search", tool("3 results", 5, 5), Duration.ofMillis(500)))
            // The weather API answers in 10 ms, or 2 s on slow days; the session waits 60 ms, then
            // asks a cache that answers in 2 ms.
            .step(ToolStep.of("weather", tool("21 C", 10, 2_000), Duration.ofMillis(60))
                .withFallback(tool("21 C", 2, 2)))
            .build()) {
      ToolCascadeKit kit = ToolCascadeKit.builder("weather", "21 C"::equals).build();
      RunResult result = run(agent, kit);
      ToolCascadeKit.CascadeVerdict v = kit.verdict(result.measured());
      LoggerFactory.getLogger(ToolCascadeKitTest.class).info("{}", v);

      assertThat(result.measured()).hasSize(24).allMatch(RequestRecord::succeeded);
      for (RequestRecord r : result.measured()) {
        boolean slow = r.tags().get(AgentSessionTarget.PREFIX + "weather.outcome").equals("timeout+fallback");
        double stepMs = Double.parseDouble(r.tags().get(AgentSessionTarget.PREFIX + "weather.ms"));
        double planMs = Double.parseDouble(r.tags().get(AgentSessionTarget.PREFIX + "plan.ms"));
        if (slow) {
          // Hand computation: the 60 ms timeout plus the 2 ms fallback at least.
          assertThat(stepMs).isGreaterThanOrEqualTo(62.0);
          // The session: plan (>= 5 ms TTFT + 7 tokens x 1 ms), search (>= 5 ms), weather (>= 62 ms),
          // then the answer's 5 ms TTFT before its first token.
          assertThat(r.chunks().firstTokenOffsetNanos().getAsLong() / 1e6).isGreaterThanOrEqualTo(12 + 5 + 62 + 5);
          assertThat(planMs).isGreaterThanOrEqualTo(12.0);
        } else {
          assertThat(r.tags().get(AgentSessionTarget.PREFIX + "weather.outcome")).isEqualTo("ok");
          assertThat(stepMs).isGreaterThanOrEqualTo(10.0);
        }
      }
      // Half the sessions are slow days: 12 fall back, all correctly (the cache holds 21 C).
      assertThat(v.timeouts()).isEqualTo(12);
      assertThat(v.fallbacks()).isEqualTo(12);
      assertThat(v.fallbackCorrect()).isEqualTo(12);
      assertThat(v.fallbackStepMeanMs().getAsDouble()).isGreaterThanOrEqualTo(62.0);
      assertThat(v.cascadeCostMs()).isPresent();
      assertThat(v.pass()).isTrue();
    }
  }

  @Test
  void aStaleFallbackIsCountedIncorrectAndAStepWithoutFallbackFailsTheSessionAsATimeout() {
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(2))
        .interTokenInterval(Duration.ofMillis(1)).build();
    try (Simulator sim = Simulator.start(config);
        AgentSessionTarget stale = AgentSessionTarget.builder(OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model())
                .build())
            .step(ToolStep.of("weather", tool("21 C", 5, 2_000), Duration.ofMillis(40)).withFallback(tool("19 C", 1, 1)))
            .build();
        AgentSessionTarget bare = AgentSessionTarget.builder(OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model())
                .build())
            .step(ToolStep.of("weather", tool("21 C", 5, 2_000), Duration.ofMillis(40)))
            .build()) {
      ToolCascadeKit kit = ToolCascadeKit.builder("weather", "21 C"::equals).build();
      ToolCascadeKit.CascadeVerdict v = kit.verdict(run(stale, kit).measured());
      assertThat(v.fallbacks()).isEqualTo(12);
      assertThat(v.fallbackCorrect()).isZero();
      assertThat(v.pass()).isFalse();
      assertThat(v.reasons()).singleElement().asString().contains("fallback correct in 0 of 12");

      RunResult failing = run(bare, kit);
      ToolCascadeKit.CascadeVerdict f = kit.verdict(failing.measured());
      assertThat(f.failed()).isEqualTo(12);
      assertThat(failing.measured()).filteredOn(r -> !r.succeeded()).allSatisfy(r -> {
        assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.TIMEOUT);
        assertThat(r.failure().orElseThrow().message()).contains("tool step weather ended without a result (timeout)");
      });
      assertThat(f.pass()).isFalse();
    }
  }
}
