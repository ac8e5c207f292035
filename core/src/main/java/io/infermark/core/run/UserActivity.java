package io.infermark.core.run;

import io.infermark.core.load.LoadProfile;
import io.infermark.core.load.UserRamp;

/**
 * When each closed-loop stream may send: always, or, under a Locust-style {@link UserRamp}, while
 * its simulated user is active. A stream whose user joins (or rejoins) later is due at the join
 * time itself, so a late wake-up after the join shows as schedule lag instead of vanishing.
 */
final class UserActivity {

  private final UserRamp ramp;
  private final long origin;

  private UserActivity(UserRamp ramp, long origin) {
    this.ramp = ramp;
    this.origin = origin;
  }

  /** The activity of a profile's streams, on a run whose origin is the clock reading {@code origin}. */
  static UserActivity of(LoadProfile load, long origin) {
    return new UserActivity(load.userRamp().orElse(null), origin);
  }

  /**
   * When a stream's first request is due: under a ramp, the run's origin (so a user that joins at 2 s is due at
   * 2 s, however late its stream's thread got to it); otherwise {@code now}, when the stream starts.
   */
  long firstDue(long now) {
    return ramp == null ? now : origin;
  }

  /**
   * The first clock reading at or after {@code due} at which the stream may send; MAX_VALUE if its
   * user is never active again.
   */
  long activeAt(int stream, long due) {
    if (ramp == null) {
      return due;
    }
    long at = ramp.nextActiveNanos(stream, Math.max(due - origin, 0));
    return at == Long.MAX_VALUE ? at : Math.max(due, origin + at);
  }
}
