package io.infermark.metrics.slo;

import static io.infermark.metrics.TestRuns.ms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.TestRuns;
import io.infermark.metrics.slo.SloVerdict.Outcome;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Expected values from {@link TestRuns#mixedRun()}: 8 measured, 4 succeeded (#1 TTFT 10 E2E 30 gaps 10,10
 * N 3 "stop"; #2 TTFT 20 E2E 40 gap 20 N 2; #3 no tokens; #8 TTFT 10 E2E 20 gap 10 N 5), 4 failed, window
 * 100..1500 ms = 1.4 s.
 */
class SloSetTest {

  private final RunResult run = TestRuns.mixedRun();

  @Test
  void chatPresetPassesWithMarginsAndCountsGoodputPerRequest() {
    SloReport report = SloPresets.chat().evaluate(run);
    SloVerdict ttft = report.verdicts().get(0);
    assertThat(ttft.slo().name()).isEqualTo("TTFT p99 <= 200 ms");
    assertThat(ttft.outcome()).isEqualTo(Outcome.PASS);
    assertThat(ttft.measured().getAsDouble()).isCloseTo(19.8, within(1e-9)); // linear p99 of [10, 10, 20]
    assertThat(ttft.margin().getAsDouble()).isCloseTo(180.2, within(1e-9));
    assertThat(ttft.note()).isEqualTo("too few samples for this percentile (3 of 100)");
    SloVerdict itl = report.verdicts().get(1);
    assertThat(itl.measured().getAsDouble()).isCloseTo(19.7, within(1e-9)); // p99 of [10, 10, 10, 20]
    // #1, #2 and #8 meet both per request; #3 (no token) misses; the 4 failures miss.
    assertThat(report.goodput().met()).isEqualTo(3);
    assertThat(report.goodput().measured()).isEqualTo(8);
    assertThat(report.goodput().goodputRps().getAsDouble()).isCloseTo(3 / 1.4, within(1e-9));
    assertThat(report.goodput().fraction().getAsDouble()).isEqualTo(3 / 8.0);
    assertThat(report.allPassed()).isTrue();
  }

  @Test
  void goodputChecksEachRequestAgainstItsOwnValue() {
    // The run's TTFT p50 is 10 ms, within 15 ms, but request #2 took 20 ms and is no good.
    SloReport report = SloSet.of("tight", Slo.latency(LatencyMetric.TTFT, 0.5, 15)).evaluate(run);
    assertThat(report.verdicts().get(0).passed()).isTrue();
    assertThat(report.goodput().met()).isEqualTo(2);
  }

  @Test
  void itlSloPerRequestLooksAtEveryGap() {
    SloReport report = SloSet.of("itl", Slo.latency(LatencyMetric.ITL, 0.5, 15)).evaluate(run);
    assertThat(report.goodput().met()).isEqualTo(2); // #2's only gap is 20 ms
  }

  @Test
  void tpotUndefinedForOneTokenIsNotHeldAgainstTheRequest() {
    RequestRecord oneToken = RequestRecord.builder().index(0).httpStatus(200)
        .chunks(ChunkTimeline.builder().add(ms(500), ChunkKind.CONTENT, 1).build())
        .usage(Usage.of(10, 1)).endOffsetNanos(ms(501)).build();
    SloReport report = SloSet.of("tpot", Slo.latency(LatencyMetric.TPOT, 0.99, 1)).evaluate(TestRuns.run(
        List.of(oneToken)));
    assertThat(report.goodput().met()).isEqualTo(1);
    assertThat(report.verdicts().get(0).outcome()).isEqualTo(Outcome.NO_DATA);
    assertThat(report.allPassed()).isFalse();
  }

  @Test
  void ragPresetUsesE2eP95() {
    SloVerdict v = SloPresets.rag().evaluate(run).verdicts().get(0);
    assertThat(v.measured().getAsDouble()).isCloseTo(39.0, within(1e-9)); // linear p95 of [20, 30, 40]
    assertThat(v.margin().getAsDouble()).isCloseTo(1161.0, within(1e-9));
  }

  @Test
  void agentPresetFailsAtHalfCompleted() {
    SloVerdict v = SloPresets.agentToolChains().evaluate(run).verdicts().get(0);
    assertThat(v.outcome()).isEqualTo(Outcome.FAIL);
    assertThat(v.measured().getAsDouble()).isEqualTo(0.5);
    assertThat(v.margin().getAsDouble()).isCloseTo(-0.492, within(1e-12));
  }

  @Test
  void throughputPresetDividesByGpus() {
    // 10 output tokens in 1.4 s over 2 GPUs.
    SloVerdict v = SloPresets.inferenceThroughput(2).evaluate(run).verdicts().get(0);
    assertThat(v.slo().name()).isEqualTo("output tokens/s per GPU >= 1800 (2 GPUs)");
    assertThat(v.measured().getAsDouble()).isCloseTo(10 / 1.4 / 2, within(1e-9));
    assertThat(v.outcome()).isEqualTo(Outcome.FAIL);
    assertThat(v.unit()).isEqualTo("tokens/s/GPU");
  }

  @Test
  void errorRateOnTheThresholdPasses() {
    SloVerdict v = SloSet.of("errors", Slo.errorRate(0.5)).evaluate(run).verdicts().get(0);
    assertThat(v.measured().getAsDouble()).isEqualTo(0.5);
    assertThat(v.margin().getAsDouble()).isEqualTo(0.0);
    assertThat(v.passed()).isTrue();
  }

  @Test
  void validityPredicateJudgesSuccessesAndDecidesGoodput() {
    Slo stop = Slo.validity("finished with stop", r -> r.finishReason().filter("stop"::equals).isPresent());
    SloReport report = SloSet.of("valid", stop).evaluate(run);
    SloVerdict v = report.verdicts().get(0);
    assertThat(v.measured().getAsDouble()).isEqualTo(0.25); // only #1 of 4 successes
    assertThat(v.note()).isEqualTo("3 invalid of 4");
    assertThat(v.passed()).isFalse();
    assertThat(report.goodput().met()).isEqualTo(1);
  }

  @Test
  void latencySloWithoutSuccessesHasNoData() {
    RequestRecord failed = RequestRecord.builder().index(0).failure(Optional.of(Failure.of(ErrorCategory.CONNECT,
        "refused"))).endOffsetNanos(ms(1)).build();
    SloReport report = SloPresets.chat().evaluate(TestRuns.run(List.of(failed)));
    assertThat(report.verdicts()).allMatch(v -> v.outcome() == Outcome.NO_DATA);
    assertThat(report.goodput().met()).isZero();
    assertThat(report.goodput().measured()).isEqualTo(1);
  }

  @Test
  void combinedSetsKeepOrder() {
    SloSet s = SloPresets.chat().and(SloPresets.rag());
    assertThat(s.name()).isEqualTo("chat + rag");
    assertThat(s.slos()).extracting(Slo::name)
        .containsExactly("TTFT p99 <= 200 ms", "ITL p99 <= 50 ms", "E2E p95 <= 1200 ms");
  }

  @Test
  void rejectsBadThresholds() {
    assertThatThrownBy(() -> Slo.latency(LatencyMetric.TTFT, 0, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("p must be in (0, 1]");
    assertThatThrownBy(() -> Slo.completionRate(99.2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 99.2");
    assertThatThrownBy(() -> SloPresets.inferenceThroughput(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("gpus must be >= 1, was 0");
  }
}
