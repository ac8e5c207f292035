package io.infermark.core.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CeilingSearchTest {

  /** A measurement that passes at and below a known ceiling, recording what it was asked. */
  private static final class Known implements CeilingSearch.Measurement {
    final double ceiling;
    final List<Double> asked = new ArrayList<>();

    Known(double ceiling) {
      this.ceiling = ceiling;
    }

    @Override
    public CeilingStep measure(double level) {
      asked.add(level);
      return level <= ceiling ? CeilingStep.pass(level, "under") : CeilingStep.fail(level, "over");
    }
  }

  @Test
  void findsAKnownCeilingWithinTheTolerance() {
    Known m = new Known(12_345.6);
    CeilingResult r = CeilingSearch.builder().start(100).max(1e7).growth(2).tolerance(0.05).build().run(m);

    assertThat(r.outcome()).isEqualTo(CeilingResult.Outcome.FOUND);
    assertThat(r.ceiling().getAsDouble()).isLessThanOrEqualTo(12_345.6);
    assertThat(r.firstFailure().getAsDouble()).isGreaterThan(12_345.6);
    assertThat(r.relativeWidth().getAsDouble()).isLessThanOrEqualTo(0.05);
    assertThat(12_345.6 - r.ceiling().getAsDouble()).isLessThanOrEqualTo(0.05 * r.ceiling().getAsDouble());
    // geometric: 100, 200, ... 12,800 (the first failure), then bisection between 6,400 and 12,800
    assertThat(m.asked.subList(0, 8)).containsExactly(100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0, 12800.0);
    assertThat(r.steps()).hasSize(m.asked.size());
    assertThat(r.ceilingStep().orElseThrow().level()).isEqualTo(r.ceiling().getAsDouble());
  }

  @Test
  void stepsDownWhenTheStartFails() {
    Known m = new Known(30);
    CeilingResult r = CeilingSearch.builder().start(1000).min(1).growth(4).tolerance(0.1).build().run(m);

    assertThat(r.outcome()).isEqualTo(CeilingResult.Outcome.FOUND);
    assertThat(m.asked.subList(0, 3)).containsExactly(1000.0, 250.0, 62.5);
    assertThat(r.ceiling().getAsDouble()).isBetween(30 / 1.1, 30.0);
  }

  @Test
  void wholeNumberLevelsStopAtAdjacentIntegers() {
    Known m = new Known(37);
    CeilingResult r = CeilingSearch.builder().start(4).integral(true).tolerance(0.001).build().run(m);

    assertThat(r.outcome()).isEqualTo(CeilingResult.Outcome.FOUND);
    assertThat(r.ceiling().getAsDouble()).isEqualTo(37.0);
    assertThat(r.firstFailure().getAsDouble()).isEqualTo(38.0);
    assertThat(m.asked).allSatisfy(level -> assertThat(level % 1).isZero());
  }

  @Test
  void saysWhenTheMaximumPassedOrTheMinimumFailed() {
    CeilingResult atMax = CeilingSearch.builder().start(10).max(100).build().run(new Known(1e6));
    assertThat(atMax.outcome()).isEqualTo(CeilingResult.Outcome.AT_MAX);
    assertThat(atMax.ceiling().getAsDouble()).isEqualTo(100.0);
    assertThat(atMax.firstFailure()).isEmpty();

    CeilingResult belowMin = CeilingSearch.builder().start(10).min(2).build().run(new Known(1));
    assertThat(belowMin.outcome()).isEqualTo(CeilingResult.Outcome.BELOW_MIN);
    assertThat(belowMin.ceiling()).isEmpty();
    assertThat(belowMin.firstFailure().getAsDouble()).isEqualTo(2.0);
  }

  @Test
  void aTimeBudgetEndsTheSearchWithALowerBound() {
    long[] now = {0};
    CeilingSearch.Measurement slow = level -> {
      now[0] += Duration.ofSeconds(3).toNanos(); // each step takes 3 s on the fake clock
      return level <= 5000 ? CeilingStep.pass(level, "") : CeilingStep.fail(level, "");
    };
    CeilingResult r = CeilingSearch.builder().start(1).budget(Duration.ofSeconds(10)).clock(() -> now[0]).build()
        .run(slow);

    assertThat(r.outcome()).isEqualTo(CeilingResult.Outcome.BUDGET_SPENT);
    assertThat(r.steps()).hasSize(3); // at 9 s, a fourth 3-s step would end past 10 s
    assertThat(r.ceiling().getAsDouble()).isEqualTo(4.0);
    assertThat(now[0]).isLessThanOrEqualTo(Duration.ofSeconds(10).toNanos());
  }

  @Test
  void theStartLevelIsMeasuredEvenWhenTheBudgetIsAlreadyTight() {
    long[] now = {0};
    CeilingSearch.Measurement slow = level -> {
      now[0] += Duration.ofSeconds(5).toNanos();
      return CeilingStep.pass(level, "");
    };
    CeilingResult r = CeilingSearch.builder().start(8).budget(Duration.ofNanos(1)).clock(() -> now[0]).build()
        .run(slow);

    assertThat(r.steps()).hasSize(1);
    assertThat(r.ceiling().getAsDouble()).isEqualTo(8.0);
  }

  @Test
  void aStepBudgetEndsTheSearch() {
    CeilingResult r = CeilingSearch.builder().start(1).maxSteps(5).build().run(new Known(1e6));
    assertThat(r.outcome()).isEqualTo(CeilingResult.Outcome.BUDGET_SPENT);
    assertThat(r.steps()).hasSize(5);
    assertThat(r.ceiling().getAsDouble()).isEqualTo(16.0);
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> CeilingSearch.builder().growth(1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("growth");
    assertThatThrownBy(() -> CeilingSearch.builder().min(10).max(5).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("min");
    assertThatThrownBy(() -> CeilingSearch.builder().tolerance(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CeilingStep.pass(Double.NaN, "")).isInstanceOf(IllegalArgumentException.class);
  }
}
