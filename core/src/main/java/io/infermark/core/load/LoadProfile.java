package io.infermark.core.load;

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
 */
public final class LoadProfile {

  /** Default time in-flight requests get to finish after issuing stops. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(60);

  private final int concurrency;
  private final ArrivalProcess arrivals;
  private final int requests;
  private final Duration duration;
  private final int warmupRequests;
  private final int maxInFlight;
  private final long seed;
  private final Duration drainTimeout;
  private final Duration timeout;

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

  /** Closed loop: {@code streams} concurrent requests, each followed at once by the next. */
  public static LoadProfile concurrency(int streams) {
    if (streams <= 0) {
      throw new IllegalArgumentException("concurrency must be > 0, was " + streams);
    }
    return new LoadProfile(streams, null, -1, null, 0, -1, 0, DEFAULT_DRAIN_TIMEOUT, null);
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

  /** Stop after this many measured requests (warmup requests come on top). */
  public LoadProfile requests(int count) {
    if (count <= 0) {
      throw new IllegalArgumentException("request count must be > 0, was " + count);
    }
    return new LoadProfile(concurrency, arrivals, count, duration, warmupRequests, maxInFlight, seed, drainTimeout,
        timeout);
  }

  /** Stop issuing requests after this long (measured from the start of the run, warmup included). */
  public LoadProfile duration(Duration d) {
    return new LoadProfile(concurrency, arrivals, requests, positive(d, "duration"), warmupRequests, maxInFlight,
        seed, drainTimeout, timeout);
  }

  /** Send this many requests first and exclude them from statistics. */
  public LoadProfile warmupRequests(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("warmup request count must be >= 0, was " + count);
    }
    return new LoadProfile(concurrency, arrivals, requests, duration, count, maxInFlight, seed, drainTimeout,
        timeout);
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
    return new LoadProfile(concurrency, arrivals, requests, duration, warmupRequests, max, seed, drainTimeout,
        timeout);
  }

  /** Seed of the arrival schedule. */
  public LoadProfile seed(long seed) {
    return new LoadProfile(concurrency, arrivals, requests, duration, warmupRequests, maxInFlight, seed, drainTimeout,
        timeout);
  }

  /** How long in-flight requests may take to finish once issuing has stopped, before they are cancelled. */
  public LoadProfile drainTimeout(Duration d) {
    return new LoadProfile(concurrency, arrivals, requests, duration, warmupRequests, maxInFlight, seed,
        positive(d, "drainTimeout"), timeout);
  }

  /** A hard cap on the whole run: whatever is still in flight or unsent then is cancelled. */
  public LoadProfile timeout(Duration d) {
    return new LoadProfile(concurrency, arrivals, requests, duration, warmupRequests, maxInFlight, seed, drainTimeout,
        positive(d, "timeout"));
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

  /**
   * The most requests this profile can have in flight at once, for sizing connection pools:
   * the concurrency, the open-loop cap, or (uncapped open loop) an estimate from rate and limits.
   */
  public int expectedMaxInFlight() {
    if (isClosedLoop()) {
      return concurrency;
    }
    if (maxInFlight > 0) {
      return maxInFlight;
    }
    int total = requests < 0 ? Integer.MAX_VALUE : requests + warmupRequests;
    return Math.max(1, Math.min(total, 4096));
  }

  /** Checks that the profile can end; called before a run. */
  public void validate() {
    if (requests < 0 && duration == null) {
      throw new IllegalStateException("a load profile needs a limit: call requests(n) or duration(d)");
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
    if (requests > 0) {
      s.append(", ").append(requests).append(" requests");
    }
    if (duration != null) {
      s.append(", for ").append(duration);
    }
    if (warmupRequests > 0) {
      s.append(", ").append(warmupRequests).append(" warmup");
    }
    if (maxInFlight > 0) {
      s.append(", max ").append(maxInFlight).append(" in flight");
    }
    if (!isClosedLoop()) {
      s.append(", seed ").append(seed);
    }
    return s.append(']').toString();
  }
}
