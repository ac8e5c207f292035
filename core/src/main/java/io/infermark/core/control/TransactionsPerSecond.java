package io.infermark.core.control;

import io.infermark.core.capture.RequestRecord;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.OptionalDouble;

/**
 * Completed transactions per second within an SLA latency, over a trailing time window; see
 * {@link ControlSignal#transactionsPerSecond(Duration, Duration)}.
 */
public final class TransactionsPerSecond implements ControlSignal {
  private final long windowNanos;
  private final long slaNanos;

  TransactionsPerSecond(Duration window, Duration sla) {
    if (window == null || window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be > 0, was " + window);
    }
    if (sla == null || sla.isNegative() || sla.isZero()) {
      throw new IllegalArgumentException("SLA latency must be > 0, was " + sla);
    }
    this.windowNanos = window.toNanos();
    this.slaNanos = sla.toNanos();
  }

  /** Whether a record is a completed transaction within the SLA: measured, succeeded, E2E at most {@code sla}. */
  public static boolean withinSla(RequestRecord r, long slaNanos) {
    return r.measured() && r.succeeded() && r.chunks().lastTokenOffsetNanos().orElse(Long.MAX_VALUE) <= slaNanos;
  }

  @Override
  public String name() {
    return "transactions/s within " + Duration.ofNanos(slaNanos).toMillis() + " ms over " + Duration.ofNanos(windowNanos);
  }

  @Override
  public Probe open() {
    ArrayDeque<Long> done = new ArrayDeque<>(); // completion offsets from the origin
    return new Probe() {
      @Override
      public void onRecord(RequestRecord r) {
        if (withinSla(r, slaNanos)) {
          synchronized (done) {
            done.addLast(r.sendNanos() + r.endOffsetNanos());
          }
        }
      }

      @Override
      public OptionalDouble read(long elapsedNanos) {
        long from = elapsedNanos - windowNanos;
        long count = 0;
        synchronized (done) {
          while (!done.isEmpty() && done.peekFirst() <= from) {
            done.removeFirst();
          }
          for (long d : done) {
            if (d <= elapsedNanos) {
              count++;
            }
          }
        }
        return OptionalDouble.of(count / (windowNanos / 1e9));
      }
    };
  }

  @Override
  public String toString() {
    return "ControlSignal[" + name() + "]";
  }
}
