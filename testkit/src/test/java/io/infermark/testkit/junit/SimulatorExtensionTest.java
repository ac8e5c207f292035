package io.infermark.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** Runs small test classes through the JUnit engine and checks what the extension gave them and closed. */
class SimulatorExtensionTest {

  static final List<Simulator> SEEN = new ArrayList<>();
  static final List<String> URLS = new ArrayList<>();

  private static Events run(Class<?> testClass) {
    SEEN.clear();
    URLS.clear();
    return EngineTestKit.engine("junit-jupiter").selectors(selectClass(testClass)).execute().testEvents();
  }

  @WithSimulator(profile = "near-zero-cost", seed = 3)
  static class ClassWide {
    @Test
    void first(Simulator sim, OpenAiTarget target) {
      SEEN.add(sim);
      RunResult run = Benchmark.target(target).prompts(Prompt.user("hi")).run();
      assertThat(run.failureCount()).isZero();
    }

    @Test
    void second(Simulator sim, InferenceEndpoint endpoint) {
      SEEN.add(sim);
      assertThat(endpoint.simulator()).containsSame(sim);
      assertThat(endpoint.baseUrl()).isEqualTo(sim.baseUrl() + "/v1");
    }

    @Test
    @WithSimulator(seed = 99)
    void own(Simulator sim) {
      SEEN.add(sim);
      assertThat(sim.config().seed()).isEqualTo(99);
      assertThat(sim.config().engine()).isEmpty();
    }
  }

  @Test
  void aClassAnnotationSharesOneSimulatorAndAMethodAnnotationGetsItsOwnAllClosedAfterwards() {
    run(ClassWide.class).assertStatistics(s -> s.started(3).succeeded(3));

    assertThat(SEEN).hasSize(3);
    Simulator shared = SEEN.stream().filter(s -> s.config().seed() == 3).findFirst().orElseThrow();
    assertThat(SEEN.stream().filter(s -> s == shared)).hasSize(2);
    assertThat(shared.config().engine()).contains(EngineProfile.nearZeroCost());
    assertThat(SEEN).allSatisfy(s -> assertThat(s.toString()).contains("closed"));
  }

  static class PerTest {
    @RegisterExtension
    SimulatorExtension sim = SimulatorExtension.withConfig(SimulatorConfig.builder().model("per-test").build());

    @InjectSimulator
    Simulator injected;

    @Test
    void a() {
      SEEN.add(injected);
      assertThat(injected.config().model()).isEqualTo("per-test");
    }

    @Test
    void b() {
      SEEN.add(injected);
    }
  }

  @Test
  void anInstanceRegistrationStartsAFreshSimulatorPerTestAndFillsFields() {
    run(PerTest.class).assertStatistics(s -> s.succeeded(2));

    assertThat(SEEN).hasSize(2).doesNotContainNull();
    assertThat(SEEN.get(0)).isNotSameAs(SEEN.get(1));
    assertThat(SEEN).allSatisfy(s -> assertThat(s.toString()).contains("closed"));
  }

  static class External {
    @RegisterExtension
    static SimulatorExtension server = SimulatorExtension.endpoint("http://gpu-box:8000/v1", "llama");

    @Test
    void endpoint(InferenceEndpoint endpoint) {
      URLS.add(endpoint.baseUrl() + " " + endpoint.model() + " " + endpoint.simulator().isPresent());
    }

    @Test
    void simulatorIsUnavailable(Simulator sim) {
      SEEN.add(sim);
    }
  }

  @Test
  void anExternalEndpointIsInjectedAndAskingForASimulatorFailsClearly() {
    Events events = run(External.class);

    events.assertStatistics(s -> s.succeeded(1).failed(1));
    assertThat(URLS).containsExactly("http://gpu-box:8000/v1 llama false");
    assertThat(SEEN).isEmpty();
    Throwable why = events.failed().stream().findFirst().orElseThrow().getPayload(
        org.junit.platform.engine.TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow();
    assertThat(why).hasMessageStartingWith("parameter 0 of simulatorIsUnavailable(Simulator) asks for a Simulator")
        .hasMessageContaining("the tests run against the external server http://gpu-box:8000/v1")
        .hasMessageContaining("ask for an InferenceEndpoint or an OpenAiTarget instead");
  }
}
