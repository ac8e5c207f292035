package io.infermark.testkit.simulator;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger waiting = new AtomicInteger();
  private final AtomicLong generated = new AtomicLong();
  private final AtomicLong prompts = new AtomicLong();

  RealTimeServingModel(SimulatorConfig config) {
    this.ttftNanos = config.timeToFirstToken().toNanos();
    this.intervalNanos = config.interTokenInterval().toNanos();
    int limit = config.maxConcurrencyOrUnlimited();
    this.slots = limit == Integer.MAX_VALUE ? null : new Semaphore(limit, true);
  }

  @Override
  public Generation submit(String requestId, long arrivalNanos, int promptTokens, long[] promptTokenHashes,
      int outputTokens) {
    return new Scheduled(requestId, arrivalNanos, promptTokens, outputTokens);
  }

  @Override
  public EngineStats stats() {
    return new EngineStats(0, 0, running.get(), waiting.get(), 0, 0, 0, 0, 0, 0, 0, 0, prompts.get(),
        generated.get(), 0);
  }

  @Override
  public void close() {}

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

    private final String id;
    private final long arrival;
    private final int promptTokens;
    private final int outputTokens;
    private long admitted = ServerTimeline.NO_TIME;
    private int reached;
    private boolean closed;

    Scheduled(String id, long arrival, int promptTokens, int outputTokens) {
      this.id = id;
      this.arrival = arrival;
      this.promptTokens = promptTokens;
      this.outputTokens = outputTokens;
    }

    @Override
    public long awaitAdmission() throws InterruptedException {
      if (slots != null) {
        waiting.incrementAndGet();
        try {
          slots.acquire();
        } finally {
          waiting.decrementAndGet();
        }
      }
      running.incrementAndGet();
      admitted = System.nanoTime();
      return admitted;
    }

    @Override
    public long awaitToken(int index) throws InterruptedException {
      long due = admitted + ttftNanos + index * intervalNanos;
      parkUntil(due);
      if (index == 0) {
        prompts.addAndGet(promptTokens);
      }
      if (index >= reached) {
        generated.addAndGet(index + 1 - reached);
        reached = index + 1;
      }
      return due;
    }

    @Override
    public boolean isAdmitted() {
      return admitted != ServerTimeline.NO_TIME;
    }

    @Override
    public boolean isReady(int index) {
      return System.nanoTime() - (admitted + ttftNanos + index * intervalNanos) >= 0;
    }

    @Override
    public SequenceTimeline engineTimeline() {
      long first = admitted == ServerTimeline.NO_TIME || reached == 0 ? ServerTimeline.NO_TIME : admitted + ttftNanos;
      long[] tokens = new long[reached];
      for (int i = 0; i < reached; i++) {
        tokens[i] = admitted + ttftNanos + i * intervalNanos;
      }
      return new SequenceTimeline(id, arrival, promptTokens, outputTokens, admitted, admitted, first, tokens,
          reached == outputTokens ? tokens[reached - 1] : ServerTimeline.NO_TIME, new long[0], 0);
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        if (admitted != ServerTimeline.NO_TIME) {
          running.decrementAndGet();
          if (slots != null) {
            slots.release();
          }
        }
      }
    }
  }
}
