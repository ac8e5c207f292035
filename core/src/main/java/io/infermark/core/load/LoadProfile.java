package io.infermark.core.load;

import io.infermark.core.control.RateController;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * How load is offered: closed loop (a fixed number of concurrent streams, each sending its next
 * request when the previous one ends) or open loop (requests sent at the times an
 * {@link ArrivalProcess} scheduled, whether or not earlier ones have finished), with its limits.
 *
 * <pre>{@code
 * LoadProfile.concurrency(16).requests(200)
 * LoadProfile.poisson(20).duration(Duration.ofMinutes(1)).maxInFlight(256)
 * }</pre>
 *
 * <p>A run stops issuing after {@link #requests()} measured requests (plus {@link #warmupRequests()}
 * warmup ones) or after {@link #duration()}, whichever comes first. Requests still in flight then
 * get {@link #drainTimeout()} to finish before they are cancelled, so a run never outlives
 * duration + drain timeout; {@link #timeout()} caps the whole run in any mode. Immutable.
 *
 * <p>Warmup and cooldown requests are sent but flagged on their records and excluded from
 * statistics. By count ({@link #warmupRequests}, {@link #cooldownRequests}) they come on top of
 * {@link #requests()}: the first {@code w} requests are warmup, the last {@code c} cooldown. By time
 * ({@link #warmup(Duration)}, {@link #cooldown(Duration)}) they are carved out of the run as it is
 * limited: a request intended (closed loop: issued) before the warmup time, or within the cooldown
 * time before the {@link #duration()} ends, is flagged; the run is not lengthened.
 */
public final class LoadProfile {

  /** Default time in-flight requests get to finish after issuing stops. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(60);

  private int concurrency;
  private ArrivalProcess arrivals;
  private int requests;
  private Duration duration;
  private int warmupRequests;
  private int maxInFlight;
  private long seed;
  private Duration drainTimeout;
  private Duration timeout;
  private int cooldownRequests;
  private Duration warmupTime;
  private Duration cooldownTime;
  private Duration thinkTime;
  private boolean exponentialThink;
  private RateLimits limits = RateLimits.none();
  private int shardIndex;
  private int shardCount = 1;
  private RateController controller;
  private UserRamp ramp;

  private LoadProfile(int concurrency, ArrivalProcess arrivals, int requests, Duration duration, int warmupRequests,
      int maxInFlight, long seed, Duration drainTimeout, Duration timeout) {
    this.concurrency = concurrency;
    this.arrivals = arrivals;
    this.requests = requests;
    this.duration = duration;
    this.warmupRequests = warmupRequests;
    this.maxInFlight = maxInFlight;
    this.seed = seed;
    this.drainTimeout = drainTimeout;
    this.timeout = timeout;
  }

  /** A copy to change one field of before returning it (the copy is never changed afterwards). */
  private LoadProfile copy() {
    LoadProfile p = new LoadProfile(concurrency, arrivals, requests, duration, warmupRequests, maxInFlight, seed,
        drainTimeout, timeout);
    p.cooldownRequests = cooldownRequests;
    p.warmupTime = warmupTime;
    p.cooldownTime = cooldownTime;
    p.thinkTime = thinkTime;
    p.exponentialThink = exponentialThink;
    p.limits = limits;
    p.shardIndex = shardIndex;
    p.shardCount = shardCount;
    p.controller = controller;
    p.ramp = ramp;
    return p;
  }

  /** Closed loop: {@code streams} concurrent requests, each followed at once by the next. */
  public static LoadProfile concurrency(int streams) {
    if (streams <= 0) {
      throw new IllegalArgumentException("concurrency must be > 0, was " + streams);
    }
    return new LoadProfile(streams, null, -1, null, 0, -1, 0, DEFAULT_DRAIN_TIMEOUT, null);
  }

  /**
   * Closed loop whose users come and go by a Locust-style {@link UserRamp}: one stream per user at
   * the ramp's peak, each active only while the ramp counts it, for the ramp's whole
   * {@linkplain UserRamp#duration() duration} (set as this profile's duration). Split the result by
   * stage with {@code StageResult.split(result)}.
   */
  public static LoadProfile users(UserRamp ramp) {
    Objects.requireNonNull(ramp, "ramp");
    if (ramp.stages().isEmpty() || ramp.maxUsers() == 0) {
      throw new IllegalArgumentException("a user ramp needs at least one stage with users, was " + ramp
          + ": add rampTo(users, perSecond)");
    }
    LoadProfile p = concurrency(ramp.maxUsers()).duration(ramp.duration());
    p.ramp = ramp;
    return p;
  }

  /** Open loop with the given arrival process. */
  public static LoadProfile arrivals(ArrivalProcess process) {
    Objects.requireNonNull(process, "process");
    return new LoadProfile(0, process, -1, null, 0, -1, 0, DEFAULT_DRAIN_TIMEOUT, null);
  }

  /** Open loop at a constant rate (requests per second). */
  public static LoadProfile constantRate(double requestsPerSecond) {
    return arrivals(ArrivalProcess.constant(requestsPerSecond));
  }

  /** Open loop with Poisson arrivals at a mean rate (requests per second). */
  public static LoadProfile poisson(double requestsPerSecond) {
    return arrivals(ArrivalProcess.poisson(requestsPerSecond));
  }

  /**
   * Open loop whose rate a controller decides while the run goes (for example a
   * {@link io.infermark.core.control.PidController} holding P99 TTFT at a target): requests are sent
   * evenly at the current rate, and every {@link RateController#interval()} the controller sets the
   * next one. The trajectory is in {@code RunResult.control()}. Not shardable.
   */
  public static LoadProfile controlled(RateController controller) {
    Objects.requireNonNull(controller, "controller");
    Rates.check(controller.initialRate(), "initialRate");
    LoadProfile p = arrivals(new ControlledArrivals(controller));
    p.controller = controller;
    return p;
  }

  /** Stop after this many measured requests (warmup requests come on top). */
  public LoadProfile requests(int count) {
    if (count <= 0) {
      throw new IllegalArgumentException("request count must be > 0, was " + count);
    }
    LoadProfile p = copy();
    p.requests = count;
    return p;
  }

  /** Stop issuing requests after this long (measured from the start of the run, warmup included). */
  public LoadProfile duration(Duration d) {
    LoadProfile p = copy();
    p.duration = positive(d, "duration");
    return p;
  }

  /** Send this many requests first and exclude them from statistics. */
  public LoadProfile warmupRequests(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("warmup request count must be >= 0, was " + count);
    }
    LoadProfile p = copy();
    p.warmupRequests = count;
    return p;
  }

  /** Send this many requests last and exclude them from statistics (they come on top of {@link #requests}). */
  public LoadProfile cooldownRequests(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("cooldown request count must be >= 0, was " + count);
    }
    LoadProfile p = copy();
    p.cooldownRequests = count;
    return p;
  }

  /** Flag requests intended (closed loop: issued) in the run's first {@code d} as warmup. */
  public LoadProfile warmup(Duration d) {
    LoadProfile p = copy();
    p.warmupTime = positive(d, "warmup");
    return p;
  }

  /** Flag requests intended (closed loop: issued) in the last {@code d} of the {@link #duration} as cooldown. */
  public LoadProfile cooldown(Duration d) {
    LoadProfile p = copy();
    p.cooldownTime = positive(d, "cooldown");
    return p;
  }

  /** Closed loop only: each stream waits this long after a request ends before sending its next. */
  public LoadProfile thinkTime(Duration d) {
    return think(d, false);
  }

  /**
   * Closed loop only: think times drawn from an exponential distribution with this mean, seeded from
   * {@link #seed} and the request index.
   */
  public LoadProfile exponentialThinkTime(Duration mean) {
    return think(mean, true);
  }

  private LoadProfile think(Duration d, boolean exponential) {
    if (arrivals != null) {
      throw new IllegalStateException("think time applies to closed-loop profiles; an open loop sends on its "
          + "schedule");
    }
    LoadProfile p = copy();
    p.thinkTime = positive(d, "thinkTime");
    p.exponentialThink = exponential;
    return p;
  }

  /** Client-side limits in requests/s, tokens/s and concurrent streams, all at once. */
  public LoadProfile limits(RateLimits limits) {
    LoadProfile p = copy();
    p.limits = Objects.requireNonNull(limits, "limits");
    return p;
  }

  /**
   * This machine's share of a schedule split over {@code count} machines: request {@code i} of the
   * whole schedule is sent here when {@code i mod count == index}, at its original intended time and
   * with its original index, so the shards' union is the single-machine run. Open loop only; give
   * every shard the same profile, seed and workload, and start them together
   * ({@code Benchmark.startBarrier}).
   */
  public LoadProfile shard(int index, int count) {
    if (count < 1) {
      throw new IllegalArgumentException("shard count must be >= 1, was " + count);
    }
    if (index < 0 || index >= count) {
      throw new IllegalArgumentException("shard index must be in [0, " + count + "), was " + index);
    }
    if (arrivals == null) {
      throw new IllegalStateException("sharding splits open-loop schedules; for a closed loop give each machine "
          + "its own concurrency");
    }
    if (controller != null) {
      throw new IllegalStateException("a controlled rate is decided during the run and cannot be sharded");
    }
    LoadProfile p = copy();
    p.shardIndex = index;
    p.shardCount = count;
    return p;
  }

  /** The same profile without sharding: the whole schedule. */
  public LoadProfile unsharded() {
    LoadProfile p = copy();
    p.shardIndex = 0;
    p.shardCount = 1;
    return p;
  }

  /**
   * Open loop only: at most this many requests in flight; later ones wait in a client queue and the
   * wait is recorded as schedule lag (their latency from the intended time includes it).
   */
  public LoadProfile maxInFlight(int max) {
    if (arrivals == null) {
      throw new IllegalStateException("maxInFlight applies to open-loop profiles; closed loop is already capped "
          + "at its concurrency");
    }
    if (max <= 0) {
      throw new IllegalArgumentException("maxInFlight must be > 0, was " + max);
    }
    LoadProfile p = copy();
    p.maxInFlight = max;
    return p;
  }

  /** Seed of the arrival schedule. */
  public LoadProfile seed(long seed) {
    LoadProfile p = copy();
    p.seed = seed;
    return p;
  }

  /** How long in-flight requests may take to finish once issuing has stopped, before they are cancelled. */
  public LoadProfile drainTimeout(Duration d) {
    LoadProfile p = copy();
    p.drainTimeout = positive(d, "drainTimeout");
    return p;
  }

  /** A hard cap on the whole run: whatever is still in flight or unsent then is cancelled. */
  public LoadProfile timeout(Duration d) {
    LoadProfile p = copy();
    p.timeout = positive(d, "timeout");
    return p;
  }

  /** True for closed loop. */
  public boolean isClosedLoop() {
    return arrivals == null;
  }

  /** Closed loop: the number of concurrent streams; 0 for open loop. */
  public int concurrency() {
    return concurrency;
  }

  /** Open loop: the arrival process. */
  public Optional<ArrivalProcess> arrivalProcess() {
    return Optional.ofNullable(arrivals);
  }

  /** Measured request limit, if any. */
  public OptionalInt requests() {
    return requests < 0 ? OptionalInt.empty() : OptionalInt.of(requests);
  }

  /** Issuing duration limit, if any. */
  public Optional<Duration> duration() {
    return Optional.ofNullable(duration);
  }

  /** Warmup requests sent before the measured ones. */
  public int warmupRequests() {
    return warmupRequests;
  }

  /** Open-loop in-flight cap, if any. */
  public OptionalInt maxInFlight() {
    return maxInFlight < 0 ? OptionalInt.empty() : OptionalInt.of(maxInFlight);
  }

  /** Seed of the arrival schedule. */
  public long seed() {
    return seed;
  }

  /** Time in-flight requests get after issuing stops. */
  public Duration drainTimeout() {
    return drainTimeout;
  }

  /** Hard cap on the whole run, if set. */
  public Optional<Duration> timeout() {
    return Optional.ofNullable(timeout);
  }

  /** Cooldown requests sent after the measured ones. */
  public int cooldownRequests() {
    return cooldownRequests;
  }

  /** Time-based warmup window from the start, if set. */
  public Optional<Duration> warmupTime() {
    return Optional.ofNullable(warmupTime);
  }

  /** Time-based cooldown window before the end of the duration, if set. */
  public Optional<Duration> cooldownTime() {
    return Optional.ofNullable(cooldownTime);
  }

  /** Closed-loop think time (the mean, when exponential), if set. */
  public Optional<Duration> thinkTime() {
    return Optional.ofNullable(thinkTime);
  }

  /** Whether think times are exponential around {@link #thinkTime()}. */
  public boolean exponentialThinkTime() {
    return exponentialThink;
  }

  /** Client-side rate limits. */
  public RateLimits limits() {
    return limits;
  }

  /** This machine's shard index (0 when not sharded). */
  public int shardIndex() {
    return shardIndex;
  }

  /** How many machines the schedule is split over (1 when not sharded). */
  public int shardCount() {
    return shardCount;
  }

  /** The user ramp of a {@linkplain #users(UserRamp) user-ramp} profile. */
  public Optional<UserRamp> userRamp() {
    return Optional.ofNullable(ramp);
  }

  /** The rate controller of a {@linkplain #controlled controlled} profile. */
  public Optional<RateController> controller() {
    return Optional.ofNullable(controller);
  }

  /**
   * Every request the limits call for, warmup and cooldown included: requests + warmup + cooldown
   * requests, or {@link Long#MAX_VALUE} without a count limit.
   */
  public long totalRequests() {
    return requests < 0 ? Long.MAX_VALUE : (long) requests + warmupRequests + cooldownRequests;
  }

  /** Whether the request at {@code index}, intended at {@code elapsedNanos} from the origin, is warmup. */
  public boolean isWarmup(long index, long elapsedNanos) {
    return index < warmupRequests || (warmupTime != null && elapsedNanos < warmupTime.toNanos());
  }

  /** Whether the request at {@code index}, intended at {@code elapsedNanos} from the origin, is cooldown. */
  public boolean isCooldown(long index, long elapsedNanos) {
    if (cooldownRequests > 0 && requests >= 0 && index >= (long) warmupRequests + requests) {
      return true;
    }
    return cooldownTime != null && duration != null
        && elapsedNanos >= duration.toNanos() - cooldownTime.toNanos();
  }

  /**
   * The most requests this profile can have in flight at once, for sizing connection pools:
   * the concurrency, the open-loop cap, or (uncapped open loop) an estimate from rate and limits.
   */
  public int expectedMaxInFlight() {
    if (isClosedLoop()) {
      return Math.min(concurrency, limits.concurrentStreams().orElse(concurrency));
    }
    if (maxInFlight > 0) {
      return maxInFlight;
    }
    if (limits.concurrentStreams().isPresent()) {
      return limits.concurrentStreams().getAsInt();
    }
    long all = totalRequests();
    long total = all == Long.MAX_VALUE ? all : (all + shardCount - 1) / shardCount;
    return (int) Math.max(1, Math.min(total, 4096));
  }

  /**
   * Checks that the profile can end and measure something: a limit is set, a cooldown time has a
   * duration, a warmup time (with warmup + cooldown) leaves some of the duration to measure, and a
   * count without a duration fits a nanosecond schedule at the nominal rate. Called before a run.
   *
   * @throws IllegalStateException naming what is wrong and what to change
   */
  public void validate() {
    if (requests < 0 && duration == null) {
      throw new IllegalStateException("a load profile needs a limit: call requests(n) or duration(d)");
    }
    if (cooldownTime != null && duration == null) {
      throw new IllegalStateException("a cooldown time is measured back from the end of the duration: call "
          + "duration(d) too, or use cooldownRequests(n)");
    }
    if (warmupTime != null && duration != null && warmupTime.compareTo(duration) >= 0) {
      throw new IllegalStateException("warmup " + warmupTime + " covers the whole duration " + duration
          + ": every request would be warmup and nothing measured; shorten the warmup or lengthen the duration");
    }
    if (arrivals != null && controller == null && requests >= 0 && duration == null
        && arrivals.nominalRate().isPresent()) {
      double rate = arrivals.nominalRate().getAsDouble();
      long total = totalRequests();
      if (rate > 0 && (total - 1) * 1e9 / rate >= Rates.SCHEDULE_END_NANOS) {
        throw new IllegalStateException(total + " requests at " + rate + " requests/s span "
            + (total - 1) / rate / 31_556_952 + " years, beyond the 292 years (2^63 ns) a schedule can hold: raise "
            + "the rate, send fewer requests or set a duration");
      }
    }
    if (cooldownTime != null && warmupTime != null && warmupTime.plus(cooldownTime).compareTo(duration) >= 0) {
      throw new IllegalStateException("warmup " + warmupTime + " + cooldown " + cooldownTime
          + " leave nothing of the duration " + duration + " to measure");
    }
  }

  private static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, was " + d);
    }
    return d;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("LoadProfile[");
    s.append(isClosedLoop() ? "closed loop, " + concurrency + " streams" : "open loop " + arrivals);
    if (ramp != null) {
      s.append(", ").append(ramp);
    }
    if (requests > 0) {
      s.append(", ").append(requests).append(" requests");
    }
    if (duration != null) {
      s.append(", for ").append(duration);
    }
    if (warmupRequests > 0) {
      s.append(", ").append(warmupRequests).append(" warmup");
    }
    if (cooldownRequests > 0) {
      s.append(", ").append(cooldownRequests).append(" cooldown");
    }
    if (warmupTime != null) {
      s.append(", warmup ").append(warmupTime);
    }
    if (cooldownTime != null) {
      s.append(", cooldown ").append(cooldownTime);
    }
    if (thinkTime != null) {
      s.append(exponentialThink ? ", exponential think time " : ", think time ").append(thinkTime);
    }
    if (maxInFlight > 0) {
      s.append(", max ").append(maxInFlight).append(" in flight");
    }
    if (limits != RateLimits.none()) {
      s.append(", ").append(limits);
    }
    if (shardCount > 1) {
      s.append(", shard ").append(shardIndex).append(" of ").append(shardCount);
    }
    if (!isClosedLoop()) {
      s.append(", seed ").append(seed);
    }
    return s.append(']').toString();
  }
}
