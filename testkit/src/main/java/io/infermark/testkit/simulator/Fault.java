package io.infermark.testkit.simulator;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * One way the simulator can misbehave on a request, with its parameters. Attach faults to a
 * configuration with {@link SimulatorConfig.Builder#fault(Fault, double)} (a seeded per-request
 * probability) or {@link SimulatorConfig.Builder#faultOnRequests(Fault, long...)} (a schedule of
 * arrival sequence numbers). Each request suffers at most one fault.
 *
 * <p>What a client sees, and how infermark's client classifies it:
 * <table>
 *   <caption>Faults</caption>
 *   <tr><th>fault</th><th>on the wire</th><th>client category</th></tr>
 *   <tr><td>{@link #rateLimited}</td><td>HTTP 429, {@code Retry-After}, OpenAI error body</td><td>HTTP_STATUS 429</td></tr>
 *   <tr><td>{@link #unavailable}</td><td>HTTP 503, {@code Retry-After}, OpenAI error body</td><td>HTTP_STATUS 503</td></tr>
 *   <tr><td>{@link #serverError}</td><td>HTTP 500, OpenAI error body</td><td>HTTP_STATUS 500</td></tr>
 *   <tr><td>{@link #slowdown}</td><td>the response's times from arrival stretched ×m, plus a fixed seeded jitter, never sooner than a floor</td><td>success, slower</td></tr>
 *   <tr><td>{@link #stall}</td><td>no bytes for a while after K tokens, then the rest</td><td>success, one long gap</td></tr>
 *   <tr><td>{@link #disconnect}</td><td>connection closed after K tokens, body truncated</td><td>RESET</td></tr>
 *   <tr><td>{@link #malformedChunk}</td><td>after K tokens, a {@code data:} event with invalid JSON</td><td>MALFORMED_STREAM</td></tr>
 *   <tr><td>{@link #slowHeaders}</td><td>response headers (and everything after) held back</td><td>success, later headers</td></tr>
 *   <tr><td>{@link #streamError}</td><td>after K tokens, {@code data: {"error":{...}}} then {@code [DONE]}</td><td>STREAM_ERROR</td></tr>
 * </table>
 */
public final class Fault {

  /** The kinds of fault. */
  public enum Kind {
    /** HTTP 429 with {@code Retry-After}. */
    RATE_LIMITED,
    /** HTTP 503 with {@code Retry-After}. */
    UNAVAILABLE,
    /** HTTP 500 with an OpenAI error body. */
    SERVER_ERROR,
    /** Every time of the response stretched by a multiplier, plus jitter. */
    SLOWDOWN,
    /** A pause mid-stream. */
    STALL,
    /** The connection dropped mid-response. */
    DISCONNECT,
    /** An event whose JSON is invalid. */
    MALFORMED_CHUNK,
    /** Response headers sent late. */
    SLOW_HEADERS,
    /** An error object inside the stream. */
    STREAM_ERROR
  }

  private final Kind kind;
  private final int afterTokens;
  private final Duration duration;
  private final double multiplier;
  private final Duration floor;

  /** The floor of {@link #slowdown(double, Duration)}: no slowed write sooner than 100 ms after arrival. */
  public static final Duration DEFAULT_SLOWDOWN_FLOOR = Duration.ofMillis(100);

  private Fault(Kind kind, int afterTokens, Duration duration, double multiplier) {
    this(kind, afterTokens, duration, multiplier, Duration.ZERO);
  }

  private Fault(Kind kind, int afterTokens, Duration duration, double multiplier, Duration floor) {
    this.kind = kind;
    this.afterTokens = afterTokens;
    this.duration = duration;
    this.multiplier = multiplier;
    this.floor = floor;
  }

  /** HTTP 429 {@code rate_limit_exceeded} with {@code Retry-After} of {@code retryAfter} (whole seconds, rounded up). */
  public static Fault rateLimited(Duration retryAfter) {
    return new Fault(Kind.RATE_LIMITED, 0, nonNegative(retryAfter, "retryAfter"), 1);
  }

  /** HTTP 503 with {@code Retry-After} of {@code retryAfter} (whole seconds, rounded up). */
  public static Fault unavailable(Duration retryAfter) {
    return new Fault(Kind.UNAVAILABLE, 0, nonNegative(retryAfter, "retryAfter"), 1);
  }

  /** HTTP 500 with an OpenAI-shaped error body, on arrival. */
  public static Fault serverError() {
    return new Fault(Kind.SERVER_ERROR, 0, Duration.ZERO, 1);
  }

  /**
   * Stretches the response: every write that would happen {@code d} after arrival happens at
   * {@code max(100 ms, d × multiplier + jitter)}, the jitter drawn once per request, uniformly in
   * {@code [0, maxJitter]}, from the seed. {@code slowdown(1.8, Duration.ofMillis(200))} makes a
   * request 80 % slower plus up to 200 ms, and never faster than 100 ms: seed 002 §2.5's
   * {@code Math.max(100, baselineMs * 1.8 + jitter)} with {@code jitter = Math.random() * 200}. Its
   * comment says "±200ms 抖动" (±200 ms of jitter) while its code draws from [0, 200); infermark follows
   * the code. The same as {@code slowdown(multiplier, maxJitter, DEFAULT_SLOWDOWN_FLOOR)}.
   */
  public static Fault slowdown(double multiplier, Duration maxJitter) {
    return slowdown(multiplier, maxJitter, DEFAULT_SLOWDOWN_FLOOR);
  }

  /**
   * Stretches the response with an explicit floor: every write that would happen {@code d} after
   * arrival happens at {@code max(floor, d × multiplier + jitter)} (see {@link #slowdown(double,
   * Duration)}); {@code Duration.ZERO} for no floor.
   */
  public static Fault slowdown(double multiplier, Duration maxJitter, Duration floor) {
    if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException("slowdown multiplier must be a finite number >= 1, was " + multiplier);
    }
    return new Fault(Kind.SLOWDOWN, 0, nonNegative(maxJitter, "maxJitter"), multiplier,
        nonNegative(floor, "floor"));
  }

  /** After {@code afterTokens} tokens, sends nothing for {@code pause}, then the rest of the stream. */
  public static Fault stall(int afterTokens, Duration pause) {
    return new Fault(Kind.STALL, tokens(afterTokens), nonNegative(pause, "pause"), 1);
  }

  /**
   * Drops the connection after {@code afterTokens} tokens (0: before the first). A streamed
   * response announces the {@code Content-Length} it will never deliver, so clients see a
   * truncated body; a non-streamed one gets no response at all. A response with fewer tokens is
   * dropped after its last token, so a chosen request never completes cleanly.
   */
  public static Fault disconnect(int afterTokens) {
    return new Fault(Kind.DISCONNECT, tokens(afterTokens), Duration.ZERO, 1);
  }

  /** After {@code afterTokens} tokens, sends an event whose JSON is cut off, then ends the stream. */
  public static Fault malformedChunk(int afterTokens) {
    return new Fault(Kind.MALFORMED_CHUNK, tokens(afterTokens), Duration.ZERO, 1);
  }

  /** Holds the response headers back for {@code delay} after arrival; the response is otherwise normal. */
  public static Fault slowHeaders(Duration delay) {
    return new Fault(Kind.SLOW_HEADERS, 0, nonNegative(delay, "delay"), 1);
  }

  /**
   * After {@code afterTokens} tokens, sends {@code data: {"error":{...}}} (as vLLM does when
   * generation fails mid-stream) and then {@code data: [DONE]}.
   */
  public static Fault streamError(int afterTokens) {
    return new Fault(Kind.STREAM_ERROR, tokens(afterTokens), Duration.ZERO, 1);
  }

  /** The kind. */
  public Kind kind() {
    return kind;
  }

  /** After how many tokens a mid-stream fault strikes; 0 for the others. */
  public int afterTokens() {
    return afterTokens;
  }

  /** {@code Retry-After}, stall pause, header delay or maximum jitter; zero for the others. */
  public Duration duration() {
    return duration;
  }

  /** The slowdown multiplier; 1 for the others. */
  public double multiplier() {
    return multiplier;
  }

  /** The slowdown's floor: no write of a slowed response sooner than this after arrival; zero for the others. */
  public Duration floor() {
    return floor;
  }

  /**
   * When a write that would happen {@code normalNanos} after arrival happens under this slowdown,
   * with this request's {@code jitterNanos}: {@code max(floor, normalNanos × multiplier + jitterNanos)}.
   */
  long slowedNanos(long normalNanos, long jitterNanos) {
    return Math.max(floor.toNanos(), Math.round(normalNanos * multiplier) + jitterNanos);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Fault f && f.kind == kind && f.afterTokens == afterTokens && f.duration.equals(duration)
        && Double.compare(f.multiplier, multiplier) == 0 && f.floor.equals(floor);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, afterTokens, duration, multiplier, floor);
  }

  @Override
  public String toString() {
    String name = kind.name().toLowerCase(Locale.ROOT);
    return switch (kind) {
      case RATE_LIMITED, UNAVAILABLE -> name + "(retry after " + duration.toMillis() + "ms)";
      case SERVER_ERROR -> name;
      case SLOWDOWN -> name + "(x" + multiplier + " + up to " + duration.toMillis() + "ms"
          + (floor.isZero() ? "" : ", at least " + floor.toMillis() + "ms") + ")";
      case STALL -> name + "(" + duration.toMillis() + "ms after " + afterTokens + " tokens)";
      case SLOW_HEADERS -> name + "(" + duration.toMillis() + "ms)";
      default -> name + "(after " + afterTokens + " tokens)";
    };
  }

  private static Duration nonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, was " + d);
    }
    return d;
  }

  private static int tokens(int afterTokens) {
    if (afterTokens < 0) {
      throw new IllegalArgumentException("afterTokens must be 0 or more, was " + afterTokens);
    }
    return afterTokens;
  }
}
