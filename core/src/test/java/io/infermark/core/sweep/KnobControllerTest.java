package io.infermark.core.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.control.ControlSignal;
import io.infermark.core.control.Knob;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class KnobControllerTest {

  private static final long SECOND = 1_000_000_000L;

  private final AtomicReference<Double> reading = new AtomicReference<>();
  private final ControlSignal fake = ControlSignal.of("pressure", t -> reading.get() == null ? OptionalDouble.empty()
      : OptionalDouble.of(reading.get()));
  private final Knob image = Knob.range("image", 1, 8, 1);
  private final Knob audio = Knob.range("audio", 4, 32, 4);
  private final Knob text = Knob.range("text", 16, 128, 16);

  @Test
  void effortFollowsThePidLawAndEveryKnobSitsAtTheSameShareOfItsRange() {
    KnobController c = KnobController.builder(fake, 1.0).knobs(image, audio, text).initialEffort(0.5)
        .gains(0.5, 0.5, 0).build();
    c.begin();
    // Starting effort 0.5: image 1 + 0.5 x 7 = 4.5, audio 4 + 0.5 x 28 = 18, text 16 + 0.5 x 112 = 72.
    assertThat(image.value()).isEqualTo(4.5);
    assertThat(audio.intValue()).isEqualTo(18);
    assertThat(text.intValue()).isEqualTo(72);

    assertThat(c.update(SECOND)).as("no measurement holds the effort").isEqualTo(0.5);
    reading.set(0.9); // e = 0.1, integral 0.1 over 1 s: 0.5 + 0.5 x 0.1 + 0.5 x 0.1 = 0.6
    assertThat(c.update(2 * SECOND)).isCloseTo(0.6, within(1e-12));
    assertThat(image.value()).isCloseTo(5.2, within(1e-12));
    assertThat(image.intValue()).isEqualTo(5);
    assertThat(audio.intValue()).isEqualTo(21); // 20.8
    assertThat(text.intValue()).isEqualTo(83); // 83.2
    reading.set(1.2); // e = -0.2, integral 0.1 - 0.2 = -0.1: 0.5 - 0.1 - 0.05 = 0.35
    assertThat(c.update(3 * SECOND)).isCloseTo(0.35, within(1e-12));
    assertThat(image.intValue()).isEqualTo(3); // 3.45
    assertThat(c.trajectory()).hasSize(4);
    assertThat(c.trajectory().get(2).values().get("text")).isCloseTo(83.2, within(1e-9));
  }

  @Test
  void aSignalFarOverItsTargetDrivesEveryKnobToItsMinimumAndFarUnderToItsMaximum() {
    KnobController c = KnobController.builder(fake, 1.0).knobs(image, audio, text).build();
    c.begin();
    reading.set(50.0);
    assertThat(c.update(SECOND)).isZero();
    assertThat(image.intValue()).isEqualTo(1);
    assertThat(audio.intValue()).isEqualTo(4);
    assertThat(text.intValue()).isEqualTo(16);
    reading.set(0.0); // e = 1 for 10 s: the integral unwinds (anti-windup kept it at the bound)
    for (int i = 2; i < 12; i++) {
      c.update(i * SECOND);
    }
    assertThat(image.intValue()).isEqualTo(8);
    assertThat(audio.intValue()).isEqualTo(32);
    assertThat(text.intValue()).isEqualTo(128);
  }

  @Test
  void aHugeErrorThatShrinksLeavesNoIntegralOfTheWrongSign() {
    // ModalityControlScenarioTest on a busy machine: P99 TTFT 0.246 s against a 1 us target (245,936 times it),
    // then 5,000 times it. Before, the integral was clamped against the proportional term: 1 s at e = -245,935
    // stored +245,935, and at e = -4,999 that drove the effort from 0 to 1. Both errors say "far too much":
    // the effort stays 0.
    KnobController c = KnobController.builder(fake, 1.0).knobs(image, audio, text).build();
    c.begin();
    reading.set(245_936.0);
    assertThat(c.update(SECOND)).isZero();
    reading.set(5_000.0);
    assertThat(c.update(2 * SECOND)).isZero();
    assertThat(image.intValue()).isEqualTo(1);
    assertThat(text.intValue()).isEqualTo(16);
  }

  @Test
  void worstOfIsTheLargestSignalRelativeToItsTarget() {
    Map<ControlSignal, Double> targets = new LinkedHashMap<>();
    targets.put(ControlSignal.of("queue", t -> OptionalDouble.of(2.0)), 4.0); // 0.5 of target
    targets.put(ControlSignal.of("p99", t -> OptionalDouble.of(0.3)), 0.5); // 0.6 of target
    targets.put(ControlSignal.of("nothing yet", t -> OptionalDouble.empty()), 1.0);
    ControlSignal worst = ControlSignal.worstOf(targets);
    assertThat(worst.open().read(0)).hasValue(0.6);
    assertThat(worst.name()).isEqualTo("max of (queue / 4.0, p99 / 0.5, nothing yet / 1.0)");
  }

  @Test
  void knobsClampAndRejectBadRanges() {
    assertThat(image.set(20)).isEqualTo(8);
    assertThat(image.set(-3)).isEqualTo(1);
    assertThatThrownBy(() -> Knob.range("x", 5, 5, 5)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Knob.range("x", 1, 8, 9)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("outside");
    assertThatThrownBy(() -> KnobController.builder(fake, 1.0).build()).isInstanceOf(IllegalStateException.class);
  }
}
