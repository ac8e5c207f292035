package io.infermark.core.load;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * Client-side limits in several units at once: requests per second, tokens per second and
 * concurrent streams. A request goes out only when every limit allows it; the wait counts as client
 * queue time (it is part of the record's schedule lag, since the intended time stays the schedule's).
 *
 * <pre>{@code
 * LoadProfile.poisson(50).duration(Duration.ofMinutes(2))
 *     .limits(RateLimits.none().requestsPerSecond(20).tokensPerSecond(40_000).concurrentStreams(32))
 * }</pre>
 *
 * <p>Rates are paced, not bucketed: with burst 0 (the default) consecutive requests are at least
 * {@code cost / rate} apart in every unit (GCRA, the virtual-scheduling form of a token bucket);
 * {@link #burst(Duration)} lets work up to that much ahead of the pace go at once. A request's token
 * cost is an estimate made before it is sent: {@link #tokenCost(Prompt, GenerationParams)}.
 * Immutable.
 */
public final class RateLimits {

  private static final RateLimits NONE = new RateLimits(Double.NaN, Double.NaN, -1, 0);

  private final double requestsPerSecond;
  private final double tokensPerSecond;
  private final int concurrentStreams;
  private final long burstNanos;

  private RateLimits(double requestsPerSecond, double tokensPerSecond, int concurrentStreams, long burstNanos) {
    this.requestsPerSecond = requestsPerSecond;
    this.tokensPerSecond = tokensPerSecond;
    this.concurrentStreams = concurrentStreams;
    this.burstNanos = burstNanos;
  }

  /** No limits; add them with the other methods. */
  public static RateLimits none() {
    return NONE;
  }

  /** At most this many requests per second, > 0. */
  public RateLimits requestsPerSecond(double rate) {
    return new RateLimits(Rates.check(rate, "requestsPerSecond"), tokensPerSecond, concurrentStreams, burstNanos);
  }

  /** At most this many tokens per second (estimated input + max output tokens), > 0. */
  public RateLimits tokensPerSecond(double rate) {
    if (!(rate > 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("tokensPerSecond must be finite and > 0, was " + rate);
    }
    return new RateLimits(requestsPerSecond, rate, concurrentStreams, burstNanos);
  }

  /** At most this many requests in flight at once, > 0. */
  public RateLimits concurrentStreams(int streams) {
    if (streams <= 0) {
      throw new IllegalArgumentException("concurrentStreams must be > 0, was " + streams);
    }
    return new RateLimits(requestsPerSecond, tokensPerSecond, streams, burstNanos);
  }

  /** How far ahead of the pace work may go at once (default 0: strict pacing), >= 0. */
  public RateLimits burst(Duration burst) {
    Objects.requireNonNull(burst, "burst");
    if (burst.isNegative()) {
      throw new IllegalArgumentException("burst must be >= 0, was " + burst);
    }
    return new RateLimits(requestsPerSecond, tokensPerSecond, concurrentStreams, burst.toNanos());
  }

  /** The requests/s limit, if any. */
  public OptionalDouble requestsPerSecond() {
    return Double.isNaN(requestsPerSecond) ? OptionalDouble.empty() : OptionalDouble.of(requestsPerSecond);
  }

  /** The tokens/s limit, if any. */
  public OptionalDouble tokensPerSecond() {
    return Double.isNaN(tokensPerSecond) ? OptionalDouble.empty() : OptionalDouble.of(tokensPerSecond);
  }

  /** The concurrent-streams limit, if any. */
  public OptionalInt concurrentStreams() {
    return concurrentStreams < 0 ? OptionalInt.empty() : OptionalInt.of(concurrentStreams);
  }

  /** True when no rate (requests/s or tokens/s) is limited. */
  public boolean paces() {
    return !Double.isNaN(requestsPerSecond) || !Double.isNaN(tokensPerSecond);
  }

  /**
   * The token cost charged against the tokens/s limit: the prompt's input tokens plus
   * {@code max_tokens} (0 when unset, as the output length is then unknown). Input tokens are the
   * prompt's {@code input_tokens_achieved} tag when it has one (exact-length prompts carry it), else
   * {@link TokenCounter#estimate()} of its message contents.
   */
  public static long tokenCost(Prompt prompt, GenerationParams params) {
    String tagged = prompt.tags().get("input_tokens_achieved");
    long input;
    if (tagged != null) {
      input = Long.parseLong(tagged);
    } else {
      input = TokenCounter.estimate().count(prompt);
    }
    return input + params.maxTokens().orElse(0);
  }

  /** A fresh pacer for one run; thread-safe. */
  public Pacer pacer() {
    return new Pacer(this);
  }

  /**
   * The per-run state of the rate limits: each unit's theoretical arrival time (TAT). A request of
   * cost {@code c} may go at {@code max(now, TAT − burst)} in every unit; sending it moves each TAT to
   * {@code max(TAT, send) + c / rate}.
   */
  public static final class Pacer {
    private final RateLimits limits;
    private double requestTat = Double.NEGATIVE_INFINITY;
    private double tokenTat = Double.NEGATIVE_INFINITY;

    private Pacer(RateLimits limits) {
      this.limits = limits;
    }

    /**
     * Reserves a send slot for a request of {@code tokens} tokens asking at {@code nowNanos} and
     * returns the time it may be sent (>= now), on the same clock.
     */
    public synchronized long reserve(long nowNanos, long tokens) {
      double at = nowNanos;
      if (!Double.isNaN(limits.requestsPerSecond)) {
        at = Math.max(at, requestTat - limits.burstNanos);
      }
      if (!Double.isNaN(limits.tokensPerSecond)) {
        at = Math.max(at, tokenTat - limits.burstNanos);
      }
      if (!Double.isNaN(limits.requestsPerSecond)) {
        requestTat = Math.max(requestTat, at) + 1e9 / limits.requestsPerSecond;
      }
      if (!Double.isNaN(limits.tokensPerSecond)) {
        tokenTat = Math.max(tokenTat, at) + tokens * 1e9 / limits.tokensPerSecond;
      }
      return (long) Math.ceil(at);
    }
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("RateLimits[");
    String sep = "";
    if (!Double.isNaN(requestsPerSecond)) {
      s.append(String.format(Locale.ROOT, "%s req/s", requestsPerSecond));
      sep = ", ";
    }
    if (!Double.isNaN(tokensPerSecond)) {
      s.append(sep).append(String.format(Locale.ROOT, "%s tokens/s", tokensPerSecond));
      sep = ", ";
    }
    if (concurrentStreams > 0) {
      s.append(sep).append(concurrentStreams).append(" streams");
      sep = ", ";
    }
    if (burstNanos > 0) {
      s.append(sep).append("burst ").append(Duration.ofNanos(burstNanos));
      sep = ", ";
    }
    return s.append(sep.isEmpty() ? "none]" : "]").toString();
  }
}
