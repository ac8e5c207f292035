package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LengthNormalizedLatencyTest {

  @Test
  void effectiveLengthIsLinearUpToTauSquaredThenSquareRoot() {
    assertThat(LengthNormalizedLatency.effectiveLength(1, 2)).isEqualTo(1.0);
    assertThat(LengthNormalizedLatency.effectiveLength(4, 2)).isEqualTo(4.0);
    assertThat(LengthNormalizedLatency.effectiveLength(100, 2)).isEqualTo(20.0);
    assertThat(LengthNormalizedLatency.effectiveLength(100, 3)).isEqualTo(30.0);
  }

  @Test
  void perTokenAndEffectiveLengthOfTheMixedRun() {
    // Counted: #1 E2E 30 N 3, #2 E2E 40 N 2, #8 E2E 20 N 5 (warmup, failures and #3 without tokens skipped).
    var run = TestRuns.mixedRun();
    Distribution perToken = LengthNormalizedLatency.perToken(run);
    assertThat(perToken.sortedValuesMillis()).containsExactly(4.0, 10.0, 20.0);
    Distribution eff = LengthNormalizedLatency.effectiveLength(run);
    // L_eff: min(3, 2*sqrt 3) = 3, min(2, 2*sqrt 2) = 2, min(5, 2*sqrt 5) = 4.4721
    assertThat(eff.sortedValuesMillis()).usingComparatorWithPrecision(1e-9)
        .containsExactly(20 / (2 * Math.sqrt(5)), 10.0, 20.0);
    assertThat(perToken.mean().getAsDouble()).isCloseTo(34 / 3.0, within(1e-12));
  }

  @Test
  void seed000Section23sEffectiveLengthColumnIsReproduced() {
    // Seed 000 §2.3: "L_eff = min(L, τ·√L)", table "序列长度 L | τ=2时L_eff": 16 -> 8, 512 -> 45 (2·√512 = 45.25).
    assertThat(LengthNormalizedLatency.effectiveLength(16, LengthNormalizedLatency.DEFAULT_TAU)).isEqualTo(8.0);
    assertThat(LengthNormalizedLatency.effectiveLength(512, LengthNormalizedLatency.DEFAULT_TAU))
        .isCloseTo(45.254834, within(1e-6));
    assertThat(Math.round(LengthNormalizedLatency.effectiveLength(512, 2))).isEqualTo(45);
  }

  @Test
  void rejectsBadTauAndLength() {
    assertThatThrownBy(() -> LengthNormalizedLatency.effectiveLength(0, 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length must be >= 1");
    assertThatThrownBy(() -> LengthNormalizedLatency.effectiveLength(TestRuns.mixedRun(), -1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tau must be positive");
  }
}
