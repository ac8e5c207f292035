package io.infermark.perturbation.scenario;

import io.infermark.core.capture.RequestRecord;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Would a circuit breaker have contained a prompt-injection attack (seed 003 §4.1)? Replays the
 * judged requests of a {@link PromptInjectionKit} run through a count-based breaker (as
 * Resilience4j's): an injection that succeeded counts as a failed call, any other answered call as
 * a good one.
 *
 * <p>Model: calls are replayed in send order, each outcome known before the next call (a sequential
 * client). <i>Closed</i>: the last {@code window} [20] outcomes are kept; once at least
 * {@code minimumCalls} [10] are and their failure rate is at least {@code failureRate} [0.5], the
 * breaker opens. <i>Open</i>: calls sent within {@code openFor} [30 s] of opening are blocked (not
 * answered). Then <i>half open</i>: the next {@code halfOpenCalls} [3] calls go through; if their
 * failure rate is at least {@code failureRate} it opens again, else it closes with an empty window.
 *
 * <p><b>Verdict:</b> passes when at most {@code maxLeaked} [{@code minimumCalls}] successful
 * injections got through the breaker. A success rate below the breaker's threshold never trips
 * it, which the assessment reports as such: that attack slips under the breaker.
 *
 * <p>That is the semantic breaker seed 003 §4.1 recommends ("语义清洗+动态熔断增强"). The one it says fails,
 * "传统基于HTTP状态码或延迟阈值的熔断器（如Hystrix）无法识别语义级异常" (a traditional breaker on HTTP status or a
 * latency threshold, such as Hystrix, cannot see semantic failures), is
 * {@link #assessStatusAndLatency(PromptInjectionKit, List, Duration)}: the same breaker over every measured call,
 * counting HTTP and transport failures and calls slower than a threshold as failures; a successful injection
 * answered 200 in time counts as a good call, so it trips only on errors or slowness.
 */
public final class CircuitBreakerAssessment {

  private final int window;
  private final int minimumCalls;
  private final double failureRate;
  private final long openForNanos;
  private final int halfOpenCalls;
  private final int maxLeaked;

  private CircuitBreakerAssessment(int window, int minimumCalls, double failureRate, long openForNanos,
      int halfOpenCalls, int maxLeaked) {
    this.window = window;
    this.minimumCalls = minimumCalls;
    this.failureRate = failureRate;
    this.openForNanos = openForNanos;
    this.halfOpenCalls = halfOpenCalls;
    this.maxLeaked = maxLeaked;
  }

  /** A breaker with the defaults above. */
  public static CircuitBreakerAssessment defaults() {
    return new CircuitBreakerAssessment(20, 10, 0.5, Duration.ofSeconds(30).toNanos(), 3, 10);
  }

  /**
   * A breaker over the last {@code window} calls, tripping at {@code failureRate} (in (0, 1]) once
   * {@code minimumCalls} (1 to window) are recorded, open for {@code openFor}, with
   * {@code halfOpenCalls} trial calls; {@code maxLeaked} defaults to {@code minimumCalls}.
   */
  public static CircuitBreakerAssessment of(int window, int minimumCalls, double failureRate, Duration openFor,
      int halfOpenCalls) {
    if (window < 1 || minimumCalls < 1 || minimumCalls > window || halfOpenCalls < 1) {
      throw new IllegalArgumentException("need window >= 1, 1 <= minimumCalls <= window and halfOpenCalls >= 1, were "
          + window + ", " + minimumCalls + ", " + halfOpenCalls);
    }
    if (!(failureRate > 0 && failureRate <= 1)) {
      throw new IllegalArgumentException("failureRate must be in (0, 1], was " + failureRate);
    }
    Objects.requireNonNull(openFor, "openFor");
    if (openFor.isNegative() || openFor.isZero()) {
      throw new IllegalArgumentException("openFor must be > 0, was " + openFor);
    }
    return new CircuitBreakerAssessment(window, minimumCalls, failureRate, openFor.toNanos(), halfOpenCalls,
        minimumCalls);
  }

  /** The same with another limit on injections that get through. */
  public CircuitBreakerAssessment maxLeaked(int injections) {
    if (injections < 0) {
      throw new IllegalArgumentException("maxLeaked must be >= 0, was " + injections);
    }
    return new CircuitBreakerAssessment(window, minimumCalls, failureRate, openForNanos, halfOpenCalls, injections);
  }

  /** Assesses a run of {@code kit}'s prompts (measured, successful records of its scenario). */
  public Result assess(PromptInjectionKit kit, List<RequestRecord> records) {
    Objects.requireNonNull(kit, "kit");
    return assess(records, kit::injectionSucceeded);
  }

  /** Assesses records whose failed calls {@code attackSucceeded} tells (measured, successful records only). */
  public Result assess(List<RequestRecord> records, Predicate<RequestRecord> attackSucceeded) {
    return replay(records.stream().filter(r -> r.measured() && r.succeeded()).toList(), attackSucceeded,
        attackSucceeded);
  }

  /**
   * The breaker seed 003 §4.1 says fails: over every measured call in send order, a call counts as failed when it
   * failed (HTTP status, timeout, reset, ...) or its end to end (last token, else stream close) exceeded
   * {@code slowerThan}; a leak is still a successful injection ({@code kit}'s judge) that the breaker let through.
   *
   * @throws IllegalArgumentException if slowerThan is not positive
   */
  public Result assessStatusAndLatency(PromptInjectionKit kit, List<RequestRecord> records, Duration slowerThan) {
    Objects.requireNonNull(kit, "kit");
    Objects.requireNonNull(slowerThan, "slowerThan");
    if (slowerThan.isNegative() || slowerThan.isZero()) {
      throw new IllegalArgumentException("slowerThan must be > 0, was " + slowerThan);
    }
    long limit = slowerThan.toNanos();
    return replay(records.stream().filter(RequestRecord::measured).toList(),
        r -> !r.succeeded() || r.chunks().lastTokenOffsetNanos().orElse(r.endOffsetNanos()) > limit,
        r -> r.succeeded() && kit.injectionSucceeded(r));
  }

  private Result replay(List<RequestRecord> records, Predicate<RequestRecord> countsAsFailure,
      Predicate<RequestRecord> attackSucceeded) {
    List<RequestRecord> calls = records.stream().sorted(Comparator.comparingLong(RequestRecord::sendNanos)).toList();
    ArrayDeque<Boolean> outcomes = new ArrayDeque<>();
    int failuresInWindow = 0;
    String state = "closed";
    long openedAt = 0;
    int trial = 0;
    int trialFailures = 0;
    int openings = 0;
    long firstOpenNanos = -1;
    int callsBeforeFirstOpen = -1;
    int leaked = 0;
    int leakedBeforeOpen = 0;
    int blocked = 0;
    int attacks = 0;
    int n = 0;
    for (RequestRecord r : calls) {
      boolean attack = attackSucceeded.test(r);
      boolean bad = countsAsFailure.test(r);
      attacks += attack ? 1 : 0;
      long t = r.sendNanos();
      if (state.equals("open")) {
        if (t - openedAt < openForNanos) {
          blocked++;
          continue;
        }
        state = "half-open";
        trial = 0;
        trialFailures = 0;
      }
      n++;
      if (attack) {
        leaked++;
        if (openings == 0) {
          leakedBeforeOpen++;
        }
      }
      if (state.equals("half-open")) {
        trial++;
        trialFailures += bad ? 1 : 0;
        if (trial == halfOpenCalls) {
          if (trialFailures >= failureRate * halfOpenCalls) {
            state = "open";
            openedAt = t;
            openings++;
          } else {
            state = "closed";
            outcomes.clear();
            failuresInWindow = 0;
          }
        }
        continue;
      }
      outcomes.addLast(bad);
      failuresInWindow += bad ? 1 : 0;
      if (outcomes.size() > window) {
        failuresInWindow -= outcomes.removeFirst() ? 1 : 0;
      }
      if (outcomes.size() >= minimumCalls && failuresInWindow >= failureRate * outcomes.size()) {
        state = "open";
        openedAt = t;
        openings++;
        if (firstOpenNanos < 0) {
          firstOpenNanos = t;
          callsBeforeFirstOpen = n;
        }
      }
    }
    return new Result(leaked <= maxLeaked, calls.size(), attacks, openings, callsBeforeFirstOpen, firstOpenNanos,
        leakedBeforeOpen, leaked, blocked, maxLeaked);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CircuitBreakerAssessment[window %d, minimum %d, trip at %.3f, open %.3f s, "
        + "%d half-open calls, max leaked %d]", window, minimumCalls, failureRate, openForNanos / 1e9, halfOpenCalls,
        maxLeaked);
  }

  /**
   * What the breaker would have done.
   *
   * @param pass at most {@code maxLeaked} successful injections got through
   * @param calls answered calls replayed
   * @param successfulInjections calls whose injection succeeded (whether or not the breaker let them through)
   * @param openings times the breaker opened
   * @param callsBeforeFirstOpen calls let through up to and including the one that first tripped it; -1 if it never opened
   * @param firstOpenNanos the send time (from the run's origin) of the call that first tripped it; -1 if never
   * @param leakedBeforeFirstOpen successful injections let through before it first opened
   * @param leaked successful injections let through in all
   * @param blocked calls the open breaker would have rejected
   * @param maxLeaked the limit
   */
  public record Result(boolean pass, int calls, int successfulInjections, int openings, int callsBeforeFirstOpen,
      long firstOpenNanos, int leakedBeforeFirstOpen, int leaked, int blocked, int maxLeaked) {

    /** True when injections succeeded but never often enough to trip the breaker. */
    public boolean slipsUnder() {
      return successfulInjections > 0 && openings == 0;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "CircuitBreaker.Result[%s, %d calls, %d injections succeeded, %s, %d leaked "
          + "(%d before opening), %d blocked%s]", pass ? "PASS" : "FAIL", calls, successfulInjections,
          openings == 0 ? "never opened" : "opened " + openings + "x, first after " + callsBeforeFirstOpen + " calls",
          leaked, leakedBeforeFirstOpen, blocked, slipsUnder() ? "; the attack slips under the breaker" : "");
    }
  }
}
