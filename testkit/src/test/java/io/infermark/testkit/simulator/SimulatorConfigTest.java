package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SimulatorConfigTest {

  @Test
  void defaultsAreTheDocumentedValues() {
    SimulatorConfig c = SimulatorConfig.defaults();

    assertThat(c.model()).isEqualTo("infermark-sim");
    assertThat(c.port()).isZero();
    assertThat(c.timeToFirstToken()).isEqualTo(Duration.ofMillis(20));
    assertThat(c.interTokenInterval()).isEqualTo(Duration.ofMillis(5));
    assertThat(c.defaultOutputTokens()).isEqualTo(64);
    assertThat(c.maxConcurrency()).isEmpty();
    assertThat(c.tokensPerChunk()).isEqualTo(1);
    assertThat(c.seed()).isZero();
    assertThat(c.serverErrorProbability()).isZero();
    assertThat(c.disconnectProbability()).isZero();
  }

  @Test
  void builderSetsEveryValue() {
    SimulatorConfig c = SimulatorConfig.builder().model("m").port(8123)
        .timeToFirstToken(Duration.ofMillis(7)).interTokenInterval(Duration.ofMillis(3))
        .defaultOutputTokens(9).maxConcurrency(4).tokensPerChunk(2).seed(11)
        .serverErrors(0.25).disconnects(0.5, 6).build();

    assertThat(c.model()).isEqualTo("m");
    assertThat(c.port()).isEqualTo(8123);
    assertThat(c.timeToFirstToken()).isEqualTo(Duration.ofMillis(7));
    assertThat(c.interTokenInterval()).isEqualTo(Duration.ofMillis(3));
    assertThat(c.defaultOutputTokens()).isEqualTo(9);
    assertThat(c.maxConcurrency()).hasValue(4);
    assertThat(c.tokensPerChunk()).isEqualTo(2);
    assertThat(c.seed()).isEqualTo(11);
    assertThat(c.serverErrorProbability()).isEqualTo(0.25);
    assertThat(c.disconnectProbability()).isEqualTo(0.5);
    assertThat(c.disconnectAfterTokens()).isEqualTo(6);
  }

  @Test
  void toBuilderCopiesAndUnlimitedConcurrencyClearsTheLimit() {
    SimulatorConfig limited = SimulatorConfig.builder().maxConcurrency(3).seed(5).build();

    assertThat(limited.toBuilder().build()).isEqualTo(limited).hasSameHashCodeAs(limited);
    assertThat(limited.toBuilder().unlimitedConcurrency().build().maxConcurrency()).isEmpty();
  }

  @Test
  void invalidValuesAreRejectedWithMessagesNamingTheSetting() {
    SimulatorConfig.Builder b = SimulatorConfig.builder();

    assertThatThrownBy(() -> b.timeToFirstToken(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeToFirstToken must not be negative, was PT-0.001S");
    assertThatThrownBy(() -> b.interTokenInterval(Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("interTokenInterval is too long");
    assertThatThrownBy(() -> b.defaultOutputTokens(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("defaultOutputTokens must be at least 1, was 0");
    assertThatThrownBy(() -> b.maxConcurrency(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("maxConcurrency must be at least 1, was 0");
    assertThatThrownBy(() -> b.tokensPerChunk(-2))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("tokensPerChunk must be at least 1, was -2");
    assertThatThrownBy(() -> b.port(70_000))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("port must be 0 (ephemeral) or 1-65535, was 70000");
    assertThatThrownBy(() -> b.model(" "))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("model must not be blank");
    assertThatThrownBy(() -> b.serverErrors(1.5))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("serverErrors probability must be between 0 and 1, was 1.5");
    assertThatThrownBy(() -> b.serverErrors(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was NaN");
    assertThatThrownBy(() -> b.disconnects(0.1, -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("disconnects afterTokens must be 0 or more, was -1");
    assertThatThrownBy(() -> b.timeToFirstToken(null))
        .isInstanceOf(NullPointerException.class).hasMessage("timeToFirstToken");
  }

  @Test
  void faultProbabilitiesMayNotSumPastOne() {
    SimulatorConfig.Builder b = SimulatorConfig.builder().serverErrors(0.6);

    assertThatThrownBy(() -> b.disconnects(0.5, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("serverErrors (0.6) + disconnects (0.5) probabilities must not exceed 1: "
            + "each request gets at most one fault");
    assertThat(b.disconnects(0.4, 2).build().disconnectProbability()).isEqualTo(0.4);
  }

  @Test
  void toStringIsOneLineWithTheTimings() {
    String s = SimulatorConfig.builder().maxConcurrency(8).disconnects(0.1, 3).build().toString();

    assertThat(s).doesNotContain("\n").isEqualTo("SimulatorConfig{model=infermark-sim, port=ephemeral, "
        + "ttft=20.0ms, itl=5.0ms, defaultOutputTokens=64, maxConcurrency=8, tokensPerChunk=1, seed=0, "
        + "disconnects=0.1 after 3 tokens}");
  }

  @Test
  void newSettingsValidateWithMessagesNamingThem() {
    SimulatorConfig.Builder b = SimulatorConfig.builder();

    assertThatThrownBy(() -> b.host("localhost")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("host must be an IP address literal");
    assertThatThrownBy(() -> b.outputTokensBetween(10, 5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("outputTokensBetween max (5) must be >= min (10)");
    assertThatThrownBy(() -> b.reasoningTokens(-1)).hasMessage("reasoningTokens must be 0 or more, was -1");
    assertThatThrownBy(() -> b.timelineRetention(0)).hasMessage("timelineRetention must be at least 1, was 0");
    assertThatThrownBy(() -> b.maxModelLength(1)).hasMessage("maxModelLength must be at least 2, was 1");
    assertThatThrownBy(() -> b.faultOnRequests(Fault.serverError())).hasMessageContaining("at least one");
    assertThatThrownBy(() -> Fault.slowdown(0.5, Duration.ZERO)).hasMessageContaining("multiplier must be");
    assertThatThrownBy(() -> Fault.slowdown(2, Duration.ZERO, Duration.ofMillis(-1)))
        .hasMessage("floor must not be negative, was PT-0.001S");
    assertThatThrownBy(() -> Fault.stall(-1, Duration.ZERO)).hasMessage("afterTokens must be 0 or more, was -1");
    SimulatorConfig.Builder faulty = SimulatorConfig.builder().fault(Fault.stall(1, Duration.ofMillis(5)), 0.7);
    assertThatThrownBy(() -> faulty.serverErrors(0.4)).hasMessage("STALL (0.7) + serverErrors (0.4) probabilities "
        + "must not exceed 1: each request gets at most one fault");
  }

  @Test
  void engineProfilesValidateAndRoundTrip() {
    EngineProfile p = EngineProfile.llama8bH200();

    assertThat(p.toBuilder().build()).isEqualTo(p).hasSameHashCodeAs(p);
    assertThat(EngineProfile.named("early-saturation")).isEqualTo(EngineProfile.earlySaturation());
    assertThat(p.kvCacheTokens()).isEqualTo(816_000);
    assertThatThrownBy(() -> p.toBuilder().decodeBaseMs(-1)).hasMessage("decodeBaseMs must be a finite number of "
        + "ms >= 0, was -1.0");
    assertThatThrownBy(() -> p.toBuilder().stepOverheadMs(0).decodeBaseMs(0).build())
        .hasMessageContaining("so every step takes time");
    assertThatThrownBy(() -> EngineProfile.named("h100")).hasMessageContaining("known: [llama-8b-h200");
    assertThat(p.toString()).doesNotContain("\n").startsWith("EngineProfile{llama-8b-h200, step 2.30 ms");
    SimulatorConfig c = SimulatorConfig.builder().engine(p).build();
    assertThat(c.toString()).isEqualTo("SimulatorConfig{model=infermark-sim, port=ephemeral, engine=llama-8b-h200, "
        + "defaultOutputTokens=64, tokensPerChunk=1, seed=0}");
    assertThat(c.toBuilder().fixedTiming().build().engine()).isEmpty();
  }
}
