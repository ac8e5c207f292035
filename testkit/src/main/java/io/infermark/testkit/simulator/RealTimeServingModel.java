package io.infermark.testkit.simulator;

import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

/**
 * The simplest engine: every admitted request runs on its own, undisturbed by the others,
 * emitting its first token a fixed time after admission and each next token a fixed interval
 * later; at most {@code maxConcurrency} requests run at once and the rest wait their turn in
 * arrival order (a fair semaphore), with the wait counting toward their time to first token.
 *
 * <p>Token {@code i} is due at {@code admitted + ttft + i * interval}, an absolute deadline
 * computed from admission, so oversleeping one token never delays the next: the schedule does
 * not drift however late individual wake-ups are.
 */
final class RealTimeServingModel implements ServingModel {

  private final long ttftNanos;
  private final long intervalNanos;
  private final Semaphore slots; // null when unlimited

  RealTimeServingModel(SimulatorConfig config) {
    this.ttftNanos = config.timeToFirstToken().toNanos();
    this.intervalNanos = config.interTokenInterval().toNanos();
    int limit = config.maxConcurrencyOrUnlimited();
    this.slots = limit == Integer.MAX_VALUE ? null : new Semaphore(limit, true);
  }

  @Override
  public Generation admit(GenerationRequest request, int outputTokens) throws InterruptedException {
    if (slots != null) {
      slots.acquire();
    }
    return new Scheduled(System.nanoTime());
  }

  /** Parks until {@code deadline}, re-parking after early wake-ups (spurious or unparks). */
  static void parkUntil(long deadline) throws InterruptedException {
    long remaining;
    while ((remaining = deadline - System.nanoTime()) > 0) {
      LockSupport.parkNanos(remaining);
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while waiting for a token");
      }
    }
  }

  private final class Scheduled implements Generation {

    private final long admitted;
    private boolean closed;

    Scheduled(long admitted) {
      this.admitted = admitted;
    }

    @Override
    public long admittedNanos() {
      return admitted;
    }

    @Override
    public void awaitToken(int index) throws InterruptedException {
      parkUntil(admitted + ttftNanos + index * intervalNanos);
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        if (slots != null) {
          slots.release();
        }
      }
    }
  }
}
