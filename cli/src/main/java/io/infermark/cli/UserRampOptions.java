package io.infermark.cli;

import io.infermark.cli.options.DurationText;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.load.UserRamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Locust's way of shaping load ({@code locust -u 100 -r 10 --run-time 5m}, seed 000 chapter 1), for {@code bench}:
 * simulated users, each a closed-loop stream, added at a spawn rate up to a count and held for the run time, or a
 * list of stages. A user that joins late shows its lateness as schedule lag (its first request is intended at
 * its join time).
 */
final class UserRampOptions {

  @Option(names = {"--users", "-u"}, paramLabel = "N",
      description = "Locust's -u: simulated users (closed-loop streams), added at --spawn-rate and held until "
          + "--run-time; instead of --request-rate/--max-concurrency.")
  Integer users;

  @Option(names = {"--spawn-rate", "-r"}, paramLabel = "PER_S",
      description = "Locust's -r: users added per second (default: all at once, 1,000,000 per second).")
  Double spawnRate;

  @Option(names = {"--run-time", "-t"}, paramLabel = "DURATION", converter = DurationText.class,
      description = "Locust's --run-time: how long the run lasts, ramp included (90s, 5m, 1h).")
  Duration runTime;

  @Option(names = "--stage", paramLabel = "DURATION:USERS:SPAWN_RATE",
      description = "A stage of a Locust-style load shape (repeatable, in order): for DURATION, move to USERS at "
          + "SPAWN_RATE users per second, then hold them, e.g. --stage 60s:10:2 --stage 5m:50:5 --stage 30s:0:10.")
  List<String> stages = new ArrayList<>();

  /** True when users (a ramp or stages) shape the load. */
  boolean given() {
    return users != null || !stages.isEmpty() || spawnRate != null || runTime != null;
  }

  /**
   * The closed-loop profile of users this command line asks for.
   *
   * @throws IllegalArgumentException if the flags do not describe a ramp
   */
  LoadProfile load() {
    return LoadProfile.users(ramp());
  }

  /** The ramp the flags describe. */
  UserRamp ramp() {
    if (!stages.isEmpty()) {
      if (users != null || spawnRate != null || runTime != null) {
        throw new IllegalArgumentException("give --stage ... or --users/--spawn-rate/--run-time, not both");
      }
      UserRamp ramp = UserRamp.startingAt(0);
      int current = 0;
      for (String s : stages) {
        Stage st = Stage.parse(s);
        double rampSeconds = 0;
        if (st.users != current) {
          rampSeconds = Math.abs(st.users - current) / st.spawnRate;
          if (rampSeconds * 1e9 > st.duration.toNanos()) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--stage %s: moving from %d to %d users at "
                + "%s per second takes %.1f s, longer than the stage", s, current, st.users,
                SweepCommand.trim(st.spawnRate), rampSeconds));
          }
          ramp = ramp.rampTo(st.users, st.spawnRate);
          current = st.users;
        }
        long hold = st.duration.toNanos() - Math.round(rampSeconds * 1e9);
        if (hold > 0) {
          ramp = ramp.hold(Duration.ofNanos(hold));
        }
      }
      return ramp;
    }
    if (users == null || users < 1) {
      throw new IllegalArgumentException("--users must be given and >= 1" + (users == null ? "" : ", was " + users));
    }
    if (runTime == null) {
      throw new IllegalArgumentException("--users needs --run-time (how long the run lasts), e.g. --run-time 5m");
    }
    double rate = spawnRate == null ? 1_000_000 : spawnRate;
    if (!(rate > 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("--spawn-rate must be > 0 users per second, was " + spawnRate);
    }
    UserRamp ramp = UserRamp.startingAt(0).rampTo(users, rate);
    long hold = runTime.toNanos() - ramp.duration().toNanos();
    if (hold <= 0) {
      // as Locust: a run time shorter than the spawning ends the run with the users spawned by then
      int reached = (int) Math.min(users, Math.max(1, Math.floor(rate * runTime.toNanos() / 1e9)));
      ramp = UserRamp.startingAt(0).rampTo(reached, rate);
      hold = runTime.toNanos() - ramp.duration().toNanos();
      return hold > 0 ? ramp.hold(Duration.ofNanos(hold)) : ramp;
    }
    return ramp.hold(Duration.ofNanos(hold));
  }

  /** The peak user count, for vLLM's max_concurrency. */
  Optional<Integer> peakUsers() {
    return given() ? Optional.of(ramp().maxUsers()) : Optional.empty();
  }

  /** One {@code --stage DURATION:USERS:SPAWN_RATE}. */
  private record Stage(Duration duration, int users, double spawnRate) {
    static Stage parse(String text) {
      String[] p = text.split(":");
      if (p.length != 3) {
        throw new IllegalArgumentException("--stage takes DURATION:USERS:SPAWN_RATE (e.g. 60s:10:2), was '" + text + "'");
      }
      try {
        Duration d = DurationText.parse(p[0]);
        int u = Integer.parseInt(p[1].strip());
        double r = Double.parseDouble(p[2].strip());
        if (u < 0 || !(r > 0) || Double.isInfinite(r)) {
          throw new NumberFormatException();
        }
        return new Stage(d, u, r);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("--stage takes DURATION:USERS:SPAWN_RATE with users >= 0 and a spawn rate "
            + "> 0 (e.g. 60s:10:2), was '" + text + "'");
      }
    }
  }
}
