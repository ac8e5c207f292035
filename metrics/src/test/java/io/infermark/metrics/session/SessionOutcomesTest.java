package io.infermark.metrics.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Seed 002 §2.5's session outcomes on the hand-timed sessions of {@link SessionRecords}. */
class SessionOutcomesTest {

  @Test
  void firstScreenAndInterruptionFollowTheHandTimedSessions() {
    // A: turn 0 ends at 250 ms (a tool between its two calls), turn 1 runs 300-500 ms (200 ms, a retry inside).
    // B: its one call fails both allowed attempts. C: turn 0 at 2000-2050 ms (50 ms), turn 1 cut by the run's end.
    // The warmup session D is not counted.
    SessionOutcomes o = SessionOutcomes.of(SessionRecords.all(), Duration.ofMillis(200), Duration.ofMillis(300));

    assertThat(o.sessions()).isEqualTo(3);
    // First screen within 200 ms: C (50 ms) only; A's first turn took 250 ms, B's failed.
    assertThat(o.firstScreenCompleted()).isEqualTo(1);
    assertThat(o.firstScreenMissed()).isEqualTo(2);
    assertThat(o.firstScreenCompletionRate().getAsDouble()).isEqualTo(1.0 / 3);
    // Patience 300 ms: A completed (250 and 200 ms turns), B interrupted by its failure, C cut (neither).
    assertThat(o.completed()).isEqualTo(1);
    assertThat(o.interrupted()).isEqualTo(1);
    assertThat(o.cut()).isEqualTo(1);
    assertThat(o.interruptionRate().getAsDouble()).isEqualTo(0.5);
    assertThat(o).hasToString("SessionOutcomes[3 sessions, first screen within 200 ms: 1 of 3, interrupted (turn "
        + "over 300 ms or failed): 1 of 2, cut 1]");
  }

  @Test
  void aTurnSlowerThanThePatienceInterruptsTheSessionAndTheLimitsAreInclusive() {
    // First screen 250 ms takes A's 250 ms turn (inclusive); a 240 ms patience gives up on it.
    SessionOutcomes o = SessionOutcomes.of(SessionRecords.all(), Duration.ofMillis(250), Duration.ofMillis(240));

    assertThat(o.firstScreenCompletionRate().getAsDouble()).isEqualTo(2.0 / 3);
    assertThat(o.completed()).isZero();
    assertThat(o.interrupted()).isEqualTo(2);
    assertThat(o.interruptionRate().getAsDouble()).isEqualTo(1.0);
  }

  @Test
  void noSessionsGiveNoRatesAndBadLimitsAreRefused() {
    SessionOutcomes none = SessionOutcomes.of(List.of(), Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertThat(none.firstScreenCompletionRate()).isEmpty();
    assertThat(none.interruptionRate()).isEmpty();
    assertThatThrownBy(() -> SessionOutcomes.of(List.of(), Duration.ZERO, Duration.ofSeconds(2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("firstScreen must be > 0");
    assertThatThrownBy(() -> SessionOutcomes.of(List.of(), Duration.ofSeconds(1), Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("patience must be > 0");
  }
}
