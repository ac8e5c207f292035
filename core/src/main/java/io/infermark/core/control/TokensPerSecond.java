package io.infermark.core.control;

import io.infermark.core.capture.RequestRecord;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.OptionalDouble;

/** Output tokens/s over a trailing time window; see {@link ControlSignal#outputTokensPerSecond}. */
final class TokensPerSecond implements ControlSignal {
  private final long windowNanos;

  TokensPerSecond(Duration window) {
    if (window == null || window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be > 0, was " + window);
    }
    this.windowNanos = window.toNanos();
  }

  @Override
  public String name() {
    return "output tokens/s over " + Duration.ofNanos(windowNanos);
  }

  @Override
  public Probe open() {
    ArrayDeque<long[]> done = new ArrayDeque<>(); // {completion offset from origin, tokens}
    return new Probe() {
      @Override
      public void onRecord(RequestRecord r) {
        if (r.measured() && r.succeeded()) {
          synchronized (done) {
            done.addLast(new long[] {r.sendNanos() + r.endOffsetNanos(), r.outputTokens()});
          }
        }
      }

      @Override
      public OptionalDouble read(long elapsedNanos) {
        long from = elapsedNanos - windowNanos;
        long tokens = 0;
        synchronized (done) {
          while (!done.isEmpty() && done.peekFirst()[0] <= from) {
            done.removeFirst();
          }
          for (long[] d : done) {
            if (d[0] <= elapsedNanos) {
              tokens += d[1];
            }
          }
        }
        return OptionalDouble.of(tokens / (windowNanos / 1e9));
      }
    };
  }

  @Override
  public String toString() {
    return "ControlSignal[" + name() + "]";
  }
}
