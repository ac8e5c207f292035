package io.infermark.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class UserRampTest {

  private static final long MS = 1_000_000L;

  // 0 -> 4 users at 2/s (2 s), hold 1 s, 4 -> 0 at 4/s (1 s): 4 s in all.
  private final UserRamp ramp = UserRamp.startingAt(0).rampTo(4, 2).hold(Duration.ofSeconds(1)).rampTo(0, 4);

  @Test
  void stagesFollowEachOtherWithDurationsFromSpawnRates() {
    assertThat(ramp.stages()).extracting(UserRamp.UserStage::startNanos).containsExactly(0L, 2000 * MS, 3000 * MS);
    assertThat(ramp.stages()).extracting(UserRamp.UserStage::durationNanos)
        .containsExactly(2000 * MS, 1000 * MS, 1000 * MS);
    assertThat(ramp.stages()).extracting(UserRamp.UserStage::kind).containsExactly(UserRamp.Kind.RAMP_UP,
        UserRamp.Kind.HOLD, UserRamp.Kind.RAMP_DOWN);
    assertThat(ramp.duration()).isEqualTo(Duration.ofSeconds(4));
    assertThat(ramp.maxUsers()).isEqualTo(4);
  }

  @Test
  void usersJoinAtOneOverTheSpawnRateFromTheStagesStartAndLeaveLastInFirstOut() {
    // Ramp up: user j joins at j / 2 s.
    assertThat(ramp.usersAt(0)).isEqualTo(1);
    assertThat(ramp.usersAt(499 * MS)).isEqualTo(1);
    assertThat(ramp.usersAt(500 * MS)).isEqualTo(2);
    assertThat(ramp.usersAt(1500 * MS)).isEqualTo(4);
    assertThat(ramp.usersAt(2500 * MS)).isEqualTo(4);
    // Ramp down at 4/s from 3 s: one leaves at 3.0, 3.25, 3.5, 3.75 s.
    assertThat(ramp.usersAt(3000 * MS)).isEqualTo(3);
    assertThat(ramp.usersAt(3249 * MS)).isEqualTo(3);
    assertThat(ramp.usersAt(3250 * MS)).isEqualTo(2);
    assertThat(ramp.usersAt(3750 * MS)).isZero();
    assertThat(ramp.usersAt(5000 * MS)).isZero();
    assertThat(ramp.isActive(3, 2999 * MS)).isTrue();
    assertThat(ramp.isActive(3, 3000 * MS)).isFalse();
    assertThat(ramp.isActive(0, 3749 * MS)).isTrue();
  }

  @Test
  void nextActiveTimeIsTheUsersJoinTimeOrNeverOnceRemoved() {
    assertThat(ramp.nextActiveNanos(3, 0)).isEqualTo(1500 * MS);
    assertThat(ramp.nextActiveNanos(3, 1600 * MS)).isEqualTo(1600 * MS);
    assertThat(ramp.nextActiveNanos(3, 3100 * MS)).isEqualTo(Long.MAX_VALUE);
    UserRamp again = UserRamp.startingAt(0).rampTo(2, 10).rampTo(0, 10).rampTo(2, 10);
    // stages: up 0-200 ms, down 200-400 ms, up 400-600 ms; user 1 joins at 100 and again at 500 ms.
    assertThat(again.nextActiveNanos(1, 250 * MS)).isEqualTo(500 * MS);
  }

  @Test
  void stageAtFindsTheStageOfATime() {
    assertThat(ramp.stageAt(2000 * MS)).get().extracting(UserRamp.UserStage::index).isEqualTo(1);
    assertThat(ramp.stageAt(4000 * MS)).isEmpty();
  }

  @Test
  void rejectsRampsThatCannotMove() {
    assertThatThrownBy(() -> UserRamp.startingAt(2).rampTo(2, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hold");
    assertThatThrownBy(() -> UserRamp.startingAt(0).rampTo(2, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LoadProfile.users(UserRamp.startingAt(0))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void usersProfileIsAClosedLoopOfThePeakForTheRampsDuration() {
    LoadProfile p = LoadProfile.users(ramp);
    assertThat(p.isClosedLoop()).isTrue();
    assertThat(p.concurrency()).isEqualTo(4);
    assertThat(p.duration()).contains(Duration.ofSeconds(4));
    assertThat(p.userRamp()).contains(ramp);
    assertThat(p.toString()).contains("UserRamp[from 0, to 4 at 2.0/s, hold 1.000 s, to 0 at 4.0/s]");
  }
}
