package io.infermark.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class RunResultBuilderTest {

  private static final Instant T0 = Instant.parse("2026-01-02T03:04:05Z");

  @Test
  void defaultsAreAHandBuiltCompleteRunWithoutRecords() {
    RunResult r = RunResult.builder().target("fake").load(LoadProfile.constantRate(5)).startedAt(T0).build();

    assertThat(r.records()).isEmpty();
    assertThat(r.recordsRetained()).isTrue();
    assertThat(r.params()).isEqualTo(GenerationParams.defaults());
    assertThat(r.clientHealth()).isEqualTo(ClientHealth.UNMEASURED);
    assertThat(r.control()).isEmpty();
    assertThat(r.insecureTls()).isFalse();
    assertThat(r.interrupted()).isFalse();
    assertThat(r.schedule().requestedRate()).hasValue(5.0);
  }

  @Test
  void toBuilderRoundTripsEveryValue() {
    RunResult r = RunResult.builder().target("fake").load(LoadProfile.concurrency(2)).startedAt(T0).originNanos(7)
        .durationNanos(1_000).promptCount(3).insecureTls(true)
        .interruption(Optional.of(new Interruption("SIGINT", T0, 9, 1, 2, 3, 0))).build();

    assertThat(r.toBuilder().build()).isEqualTo(r);
    assertThat(r.withInterruption(Optional.empty()).interrupted()).isFalse();
    assertThat(r.withInterruption(Optional.empty()).durationNanos()).isEqualTo(1_000);
  }

  @Test
  void aRunThatDidNotRetainItsRecordsNeedsItsSchedule() {
    RunResult.Builder b = RunResult.builder().target("fake").load(LoadProfile.concurrency(1)).startedAt(T0)
        .recordsNotRetained();

    assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class).hasMessageContaining("schedule");
    assertThat(b.schedule(ScheduleStats.of(List.of(), OptionalDouble.empty())).build().recordsRetained()).isFalse();
  }

  @Test
  void targetLoadAndStartAreRequired() {
    assertThatThrownBy(() -> RunResult.builder().load(LoadProfile.concurrency(1)).startedAt(T0).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("target");
  }
}
