package io.infermark.core.session;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How a session retries a failed model call or tool attempt: up to {@code maxAttempts} attempts in all,
 * waiting {@code initialBackoff × multiplier^(attempt−1)} (capped at {@code maxBackoff}) before each
 * retry, on the engine's timer. A model call that fails every attempt ends its session (the agent cannot
 * continue without the reply); a tool that fails every attempt returns an error result and the session
 * goes on, its chain no longer complete.
 */
public final class RetryPolicy {

  private static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, 1, Duration.ZERO);

  private final int maxAttempts;
  private final Duration initialBackoff;
  private final double multiplier;
  private final Duration maxBackoff;

  private RetryPolicy(int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff) {
    this.maxAttempts = maxAttempts;
    this.initialBackoff = initialBackoff;
    this.multiplier = multiplier;
    this.maxBackoff = maxBackoff;
  }

  /** No retries: one attempt. */
  public static RetryPolicy none() {
    return NONE;
  }

  /** Up to {@code maxAttempts} attempts, a fixed {@code backoff} before each retry. */
  public static RetryPolicy of(int maxAttempts, Duration backoff) {
    return exponential(maxAttempts, backoff, 1, backoff);
  }

  /**
   * Up to {@code maxAttempts} attempts, backing off {@code initial × multiplier^(retry−1)} but at most
   * {@code max}.
   */
  public static RetryPolicy exponential(int maxAttempts, Duration initial, double multiplier, Duration max) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
    }
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || max.isNegative()) {
      throw new IllegalArgumentException("backoff must be >= 0, was " + initial + " / " + max);
    }
    if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException("multiplier must be finite and >= 1, was " + multiplier);
    }
    return new RetryPolicy(maxAttempts, initial, multiplier, max);
  }

  /** Attempts in all, >= 1. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** Nanoseconds to wait before retry number {@code retry} (from 1). */
  public long backoffNanos(int retry) {
    double nanos = initialBackoff.toNanos() * Math.pow(multiplier, Math.max(0, retry - 1));
    return (long) Math.min(nanos, maxBackoff.toNanos());
  }

  @Override
  public String toString() {
    return maxAttempts == 1 ? "RetryPolicy[none]"
        : String.format(Locale.ROOT, "RetryPolicy[%d attempts, backoff %s x%s up to %s]", maxAttempts, initialBackoff,
            multiplier, maxBackoff);
  }
}
