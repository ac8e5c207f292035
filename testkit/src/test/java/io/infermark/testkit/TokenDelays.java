package io.infermark.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;

/**
 * One request's own delays against the simulator's ground truth: how long after the server made (or wrote) its
 * first and its last token the client read each, in nanoseconds. Client and simulator read one clock
 * ({@link System#nanoTime()}, one JVM): a record's instants are {@code run.originNanos() + r.sendNanos() + offset}.
 * No client reads a token before it exists, so both delays are at least 0 ({@link #of} asserts it).
 *
 * <p>A test that compares what the client measured of a request with the server's own figure bounds the
 * difference by these, exactly, instead of by a whole-run percentile (the client-health floor), which one slow
 * read on a busy machine exceeds by chance: a duration from the first to the last token differs from the
 * server's by {@code last - first}, so the client's TPOT of a request with {@code n} tokens differs from the
 * server's {@code (lastToken - firstToken) / (n - 1)} by {@code (last - first) / (n - 1)}, in
 * [{@link #tpotBelowMillis}, {@link #tpotAboveMillis}].
 *
 * @param firstNanos the client's read of its first token minus the instant the server made (wrote) it, >= 0
 * @param lastNanos the client's read of its last token minus the instant the server made (wrote) it, >= 0
 */
public record TokenDelays(long firstNanos, long lastNanos) {

  /**
   * The delays of {@code r}, whose first token the server made (or wrote) at {@code firstTokenNanos} and its last
   * at {@code lastTokenNanos} ({@link System#nanoTime()}), asserting both are at least 0.
   */
  public static TokenDelays of(RunResult run, RequestRecord r, long firstTokenNanos, long lastTokenNanos) {
    long send = run.originNanos() + r.sendNanos();
    TokenDelays d = new TokenDelays(send + r.chunks().firstTokenOffsetNanos().getAsLong() - firstTokenNanos,
        send + r.chunks().lastTokenOffsetNanos().getAsLong() - lastTokenNanos);
    assertThat(d.firstNanos()).as("client read the first token after the server made it: %s", r).isNotNegative();
    assertThat(d.lastNanos()).as("client read the last token after the server made it: %s", r).isNotNegative();
    return d;
  }

  /** The least the client's TPOT of a request with {@code gaps} token gaps can be below the server's, ms (<= 0). */
  public double tpotBelowMillis(int gaps) {
    return -firstNanos / 1e6 / gaps;
  }

  /** The most the client's TPOT of a request with {@code gaps} token gaps can be above the server's, ms (>= 0). */
  public double tpotAboveMillis(int gaps) {
    return lastNanos / 1e6 / gaps;
  }
}
