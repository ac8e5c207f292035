package io.infermark.core.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A Locust-style user ramp for a closed loop: simulated users (each a closed-loop stream that sends
 * its next request when its previous one ends, after any think time) are added at a spawn rate up
 * to a count, held there, and removed again, stage by stage.
 *
 * <pre>{@code
 * UserRamp ramp = UserRamp.startingAt(0).rampTo(20, 10).hold(Duration.ofSeconds(30)).rampTo(0, 10);
 * LoadProfile load = LoadProfile.users(ramp);
 * }</pre>
 *
 * <p>Timing, with stage {@code k} starting at {@code t_k} (the sum of the earlier stages' durations):
 * a ramp from {@code a} to {@code b > a} users at {@code r} users/s lasts {@code (b - a) / r} seconds
 * and adds user {@code a + j} (0-based stream index) at {@code t_k + j / r}, so the first joins at
 * the stage's start; a ramp down from {@code b} to {@code c < b} removes user {@code b - 1 - j} at
 * {@code t_k + j / r}, the most recently added first. A hold keeps the count for its duration. A
 * removed user finishes the request it has in flight and sends no more (Locust stops its users
 * between tasks when they have no pending wait); a user added again later resumes. Immutable.
 */
public final class UserRamp {

  /** What one stage does. */
  public enum Kind {
    /** Users are added at the stage's spawn rate. */
    RAMP_UP,
    /** The user count stays. */
    HOLD,
    /** Users are removed at the stage's spawn rate. */
    RAMP_DOWN
  }

  /**
   * One stage of a ramp.
   *
   * @param index the stage's position, from 0
   * @param kind what it does
   * @param fromUsers users at its start
   * @param toUsers users at its end
   * @param spawnRate users added or removed per second (0 for a hold)
   * @param startNanos its start, from the run's origin
   * @param durationNanos its length
   */
  public record UserStage(int index, Kind kind, int fromUsers, int toUsers, double spawnRate, long startNanos,
      long durationNanos) {

    /** Its end, from the run's origin (the next stage's start). */
    public long endNanos() {
      return startNanos + durationNanos;
    }

    /** Whether a time from the origin falls in it: start inclusive, end exclusive. */
    public boolean contains(long elapsedNanos) {
      return elapsedNanos >= startNanos && elapsedNanos < endNanos();
    }

    /** The most users active at once during the stage. */
    public int peakUsers() {
      return Math.max(fromUsers, toUsers);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "stage %d %s %d->%d users%s, %.3f s from %.3f s", index, kind, fromUsers,
          toUsers, kind == Kind.HOLD ? "" : " at " + spawnRate + "/s", durationNanos / 1e9, startNanos / 1e9);
    }
  }

  private final int initialUsers;
  private final List<UserStage> stages;

  private UserRamp(int initialUsers, List<UserStage> stages) {
    this.initialUsers = initialUsers;
    this.stages = List.copyOf(stages);
  }

  /** A ramp with no stages yet, starting with {@code users} active (usually 0). */
  public static UserRamp startingAt(int users) {
    if (users < 0) {
      throw new IllegalArgumentException("users must be >= 0, was " + users);
    }
    return new UserRamp(users, List.of());
  }

  /**
   * Adds a stage moving the user count from where the ramp is to {@code users} at {@code perSecond}
   * users per second (up or down).
   */
  public UserRamp rampTo(int users, double perSecond) {
    if (users < 0) {
      throw new IllegalArgumentException("users must be >= 0, was " + users);
    }
    if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
      throw new IllegalArgumentException("spawn rate must be a finite number of users per second > 0, was "
          + perSecond);
    }
    int from = users();
    if (users == from) {
      throw new IllegalArgumentException("the ramp is at " + users + " users already; use hold(d) to keep them");
    }
    long duration = Math.round(Math.abs(users - from) * 1e9 / perSecond);
    return with(new UserStage(stages.size(), users > from ? Kind.RAMP_UP : Kind.RAMP_DOWN, from, users, perSecond,
        endNanos(), Math.max(1, duration)));
  }

  /** Adds a stage holding the current user count for {@code d}. */
  public UserRamp hold(Duration d) {
    Rates.positiveNanos(d, "hold");
    int users = users();
    return with(new UserStage(stages.size(), Kind.HOLD, users, users, 0, endNanos(), d.toNanos()));
  }

  private UserRamp with(UserStage stage) {
    List<UserStage> next = new ArrayList<>(stages);
    next.add(stage);
    return new UserRamp(initialUsers, next);
  }

  /** The user count at the end of the last stage. */
  public int users() {
    return stages.isEmpty() ? initialUsers : stages.get(stages.size() - 1).toUsers();
  }

  /** The stages, in order. */
  public List<UserStage> stages() {
    return stages;
  }

  /** The most users active at once: the closed loop's number of streams. */
  public int maxUsers() {
    int max = initialUsers;
    for (UserStage s : stages) {
      max = Math.max(max, s.peakUsers());
    }
    return max;
  }

  /** How long all stages last together. */
  public Duration duration() {
    return Duration.ofNanos(endNanos());
  }

  private long endNanos() {
    return stages.isEmpty() ? 0 : stages.get(stages.size() - 1).endNanos();
  }

  /** The stage a time from the origin falls in; empty before the first or after the last. */
  public java.util.Optional<UserStage> stageAt(long elapsedNanos) {
    for (UserStage s : stages) {
      if (s.contains(elapsedNanos)) {
        return java.util.Optional.of(s);
      }
    }
    return java.util.Optional.empty();
  }

  /** How many users are active at {@code elapsedNanos} from the origin (the count after the last stage, after it). */
  public int usersAt(long elapsedNanos) {
    if (elapsedNanos < 0 || stages.isEmpty()) {
      return initialUsers;
    }
    for (UserStage s : stages) {
      if (s.contains(elapsedNanos)) {
        return usersIn(s, elapsedNanos);
      }
    }
    return users();
  }

  private static int usersIn(UserStage s, long elapsedNanos) {
    if (s.kind() == Kind.HOLD) {
      return s.fromUsers();
    }
    // Changes so far: the one at the stage's start plus one per 1/r since; stage times are exact
    // multiples of 1/r by construction of changeNanos.
    int changes = 0;
    int span = Math.abs(s.toUsers() - s.fromUsers());
    while (changes < span && changeNanos(s, changes) <= elapsedNanos) {
      changes++;
    }
    return s.kind() == Kind.RAMP_UP ? s.fromUsers() + changes : s.fromUsers() - changes;
  }

  /** When change {@code j} (0-based) of a ramp stage happens, from the origin. */
  private static long changeNanos(UserStage s, int j) {
    return s.startNanos() + Math.round(j * 1e9 / s.spawnRate());
  }

  /** Whether user {@code stream} (0-based) is active at {@code elapsedNanos} from the origin. */
  public boolean isActive(int stream, long elapsedNanos) {
    return stream < usersAt(elapsedNanos);
  }

  /**
   * The earliest time at or after {@code elapsedNanos} when user {@code stream} is active, or
   * {@link Long#MAX_VALUE} if it never is again within the ramp.
   */
  public long nextActiveNanos(int stream, long elapsedNanos) {
    if (isActive(stream, elapsedNanos)) {
      return elapsedNanos;
    }
    for (UserStage s : stages) {
      if (s.endNanos() <= elapsedNanos) {
        continue;
      }
      if (s.kind() == Kind.RAMP_UP && stream >= s.fromUsers() && stream < s.toUsers()) {
        return Math.max(elapsedNanos, changeNanos(s, stream - s.fromUsers()));
      }
      if (s.kind() != Kind.RAMP_UP && stream < s.fromUsers() && s.startNanos() > elapsedNanos) {
        return s.startNanos(); // only reachable when a stage starts with this user already active
      }
    }
    return Long.MAX_VALUE;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("UserRamp[from ").append(initialUsers);
    for (UserStage st : stages) {
      s.append(st.kind() == Kind.HOLD
          ? String.format(Locale.ROOT, ", hold %.3f s", st.durationNanos() / 1e9)
          : ", to " + st.toUsers() + " at " + st.spawnRate() + "/s");
    }
    return s.append(']').toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UserRamp r && r.initialUsers == initialUsers && r.stages.equals(stages);
  }

  @Override
  public int hashCode() {
    return Objects.hash(initialUsers, stages);
  }
}
