package io.infermark.core.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class PidControllerTest {

  /**
   * A deterministic plant in virtual time: an M/M/1-like server whose latency at rate r is
   * 0.1 / (1 − r/100) s, seen through a first-order lag (half the way per 1 s step).
   */
  private static final class Queue {
    double rate;
    double latency = Double.NaN;

    void step() {
      double steady = rate < 99.9 ? 0.1 / (1 - rate / 100) : 100;
      latency = Double.isNaN(latency) ? steady : latency + 0.5 * (steady - latency);
    }
  }

  @Test
  void holdsASimulatedQueuesLatencyAtTheTargetAndRecordsTheTrajectory() {
    Queue plant = new Queue();
    ControlSignal latency = ControlSignal.of("latency (s)", t -> OptionalDouble.of(plant.latency));
    PidController pid = PidController.builder(latency, 0.4).initialRate(20).rateRange(1, 200).gains(10, 10, 0)
        .interval(Duration.ofSeconds(1)).build();
    RateController.Loop loop = pid.start();
    plant.rate = 20;
    for (int k = 1; k <= 60; k++) {
      plant.step();
      plant.rate = loop.update(k * 1_000_000_000L);
    }

    List<ControlStep> t = loop.trajectory();
    assertThat(t).hasSize(61);
    assertThat(t.get(0)).isEqualTo(new ControlStep(0, OptionalDouble.empty(), 20));
    // The same control law computed independently (numpy-free Python reference): step 11 → 72.598 req/s.
    assertThat(t.get(11).rate()).isCloseTo(72.598, within(0.001));
    // Converged: the latency sits at 0.4 s, so the rate sits where 0.1 / (1 − r/100) = 0.4, r = 75.
    assertThat(t.get(60).rate()).isCloseTo(75.0, within(0.01));
    assertThat(t.get(60).measured().getAsDouble()).isCloseTo(0.4, within(1e-4));
    assertThat(t.get(60).elapsedNanos()).isEqualTo(60_000_000_000L);
  }

  @Test
  void integralDoesNotWindUpWhileTheRateIsPinnedAtItsBound() {
    double[] y = {0.1};
    PidController pid = PidController.builder(ControlSignal.of("y", t -> OptionalDouble.of(y[0])), 1)
        .initialRate(10).rateRange(1, 20).gains(5, 5, 0).build();
    RateController.Loop loop = pid.start();
    for (int k = 1; k <= 100; k++) {
      loop.update(k * 1_000_000_000L); // far below target: pinned at the maximum
    }
    assertThat(loop.trajectory().get(100).rate()).isEqualTo(20);
    y[0] = 2; // now far above: without windup the rate leaves the bound at once
    assertThat(loop.update(101_000_000_000L)).isLessThan(20);
  }

  @Test
  void backToBackUpdatesAfterAStallDoNotKickTheDerivative() {
    // After a stall the engine catches up with several updates a microsecond apart while the
    // signal moves: the derivative must not divide that move by a microsecond.
    double[] y = {1.0};
    PidController pid = PidController.builder(ControlSignal.of("y", t -> OptionalDouble.of(y[0])), 1)
        .initialRate(10).rateRange(1, 100).gains(0, 0, 1).interval(Duration.ofSeconds(1)).build();
    RateController.Loop loop = pid.start();
    assertThat(loop.update(1_000_000_000L)).isEqualTo(10); // first measurement: no derivative yet
    y[0] = 1.2;
    double afterRise = loop.update(5_000_000_000L);       // the stall: 4 s since the last update
    y[0] = 1.0;
    double afterFall = loop.update(5_000_001_000L);       // 1 µs later
    y[0] = 1.3;
    double afterRiseAgain = loop.update(5_000_002_000L);  // 1 µs later
    // Relative error moves by 0.2, −0.2 and 0.3; with kd = 1 s the step is kd·Δe/max(dt, interval).
    assertThat(afterRise).isCloseTo(10 - 0.2 / 4, within(1e-9));
    assertThat(afterFall).isCloseTo(10 + 0.2, within(1e-9));
    assertThat(afterRiseAgain).isCloseTo(10 - 0.3, within(1e-9));
  }

  @Test
  void derivativeActsOnTheMeasurementAtTheRegularInterval() {
    double[] y = {0.5};
    PidController pid = PidController.builder(ControlSignal.of("y", t -> OptionalDouble.of(y[0])), 2)
        .initialRate(10).rateRange(1, 100).gains(0, 0, 4).interval(Duration.ofMillis(500)).build();
    RateController.Loop loop = pid.start();
    loop.update(500_000_000L);
    y[0] = 1.5; // relative error falls by (1.5 − 0.5)/2 = 0.5 in 0.5 s: de/dt = −1/s, kd·de/dt = −4
    assertThat(loop.update(1_000_000_000L)).isCloseTo(6, within(1e-9));
    assertThat(loop.update(1_500_000_000L)).isCloseTo(10, within(1e-9)); // flat signal: no derivative
  }

  @Test
  void holdsTheRateWhileThereIsNothingToMeasure() {
    PidController pid = PidController.builder(ControlSignal.ttftP99(10), 0.2).initialRate(5).build();
    RateController.Loop loop = pid.start();
    assertThat(loop.update(1_000_000_000L)).isEqualTo(5);
    assertThat(loop.trajectory().get(1).measured()).isEmpty();
  }

  private static RequestRecord withTtft(long ttftMillis, long endNanos) {
    return RequestRecord.builder().chunks(ChunkTimeline.builder().add(ttftMillis * 1_000_000, ChunkKind.CONTENT, 7)
        .build()).usage(io.infermark.core.capture.Usage.of(3, 7)).endOffsetNanos(endNanos).build();
  }

  @Test
  void builtInSignalsReadTheRunsOwnRecords() {
    ControlSignal.Probe ttft = ControlSignal.ttftP99(3).open();
    for (long ms : new long[] {900, 100, 200, 300}) {
      ttft.onRecord(withTtft(ms, 1_000_000_000L));
    }
    // Window of the last 3: {100, 200, 300} ms; linear P99 = 0.2 + 0.98·0.1 = 0.298 s.
    assertThat(ttft.read(0).getAsDouble()).isCloseTo(0.298, within(1e-12));

    ControlSignal.Probe tps = ControlSignal.outputTokensPerSecond(Duration.ofSeconds(2)).open();
    tps.onRecord(withTtft(10, 500_000_000L));   // completes at 0.5 s, 7 tokens
    tps.onRecord(withTtft(10, 2_500_000_000L)); // completes at 2.5 s, 7 tokens
    assertThat(tps.read(1_000_000_000L).getAsDouble()).isCloseTo(3.5, within(1e-12)); // 7 tokens in (−1 s, 1 s]
    assertThat(tps.read(3_000_000_000L).getAsDouble()).isCloseTo(3.5, within(1e-12)); // 7 tokens in (1 s, 3 s]
    assertThat(tps.read(5_000_000_000L).getAsDouble()).isZero();
  }

  @Test
  void badControllerSettingsFailFast() {
    ControlSignal s = ControlSignal.ttftP99(10);
    assertThatThrownBy(() -> PidController.builder(s, 0)).hasMessageContaining("target must be finite and > 0");
    assertThatThrownBy(() -> PidController.builder(s, 1).rateRange(5, 5)).hasMessageContaining("rate range");
    assertThatThrownBy(() -> PidController.builder(s, 1).gains(-1, 0, 0)).hasMessageContaining("gains");
    assertThatThrownBy(() -> PidController.builder(s, 1).initialRate(50).rateRange(1, 10).build())
        .hasMessageContaining("outside the rate range");
    assertThatThrownBy(() -> ControlSignal.ttftP99(0)).hasMessageContaining("window");
  }
}
