package io.infermark.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.load.UserRamp;
import io.infermark.core.request.Prompt;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A user that joins a ramp late sends its first request intended at its join time, so a stream that got to it
 * late shows that lateness as schedule lag (seed 000 chapter 1's Locust ramp: one run once joined 139 ms late
 * and nothing said so).
 */
class UserJoinLagTest {

  private static final long MS = 1_000_000;

  @Test
  void aLateJoinIsIntendedAtTheJoinAndShowsAsLag() {
    JumpingClock clock = new JumpingClock();
    // User 0 joins at 0 ms, user 1 at 100 ms; each sends once (a long think time), the run lasts 400 ms.
    UserRamp ramp = UserRamp.startingAt(0).rampTo(2, 10).hold(Duration.ofSeconds(10));
    RunResult run = Benchmark.target(OneTokenTarget.INSTANCE).prompts(Prompt.user("hi")).clock(clock)
        .listener(new RunListener() {
          @Override
          public void onRunStarted(RunStart start) {
            clock.jump(Duration.ofMillis(239)); // the client gets to its streams 239 ms after the origin
          }
        })
        .load(LoadProfile.users(ramp).thinkTime(Duration.ofHours(1)).duration(Duration.ofMillis(400))).run();

    List<RequestRecord> records = run.records();
    assertThat(records).hasSize(2);
    RequestRecord joinedLate = records.stream().filter(r -> r.intendedNanos() == 100 * MS).findFirst().orElseThrow();
    assertThat(joinedLate.scheduleLagNanos()).isGreaterThanOrEqualTo(139 * MS);
    RequestRecord first = records.stream().filter(r -> r.intendedNanos() == 0).findFirst().orElseThrow();
    assertThat(first.scheduleLagNanos()).isGreaterThanOrEqualTo(239 * MS);
  }

  @Test
  void withoutARampAStreamIsDueWhenItStartsAsBefore() {
    RunResult run = Benchmark.target(OneTokenTarget.INSTANCE).prompts(Prompt.user("hi"))
        .load(LoadProfile.concurrency(2).requests(2)).run();
    assertThat(run.records()).allSatisfy(r -> assertThat(r.intendedNanos()).isPositive());
  }
}
