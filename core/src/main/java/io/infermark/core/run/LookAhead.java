package io.infermark.core.run;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.time.Clock;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Builds an open loop's requests ahead of their intended times on a thread of its own, in schedule
 * order, at most {@value #DEPTH} ahead. Building a prompt (sampling, exact-length tokenisation, a
 * shaper's context) can take milliseconds; done at the intended time it would land in schedule lag
 * and push every later send back. A workload that throws or returns null yields a failure for that
 * request alone.
 */
final class LookAhead implements AutoCloseable {

  /** How many requests may be built ahead of the one being sent. */
  static final int DEPTH = 256;
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** One built request: its spec, or why the workload could not build it. */
  record Built(long index, RequestSpec spec, Throwable failure) {}

  private final BlockingQueue<Built> queue = new ArrayBlockingQueue<>(DEPTH);
  private final Thread thread;
  private volatile boolean closed;

  LookAhead(Workload workload, GenerationParams params, long[] schedule, int first, int stride) {
    thread = new Thread(() -> {
      for (int i = first; i < schedule.length && !closed; i += stride) {
        Built b;
        try {
          RequestSpec spec = workload.request(i, schedule[i], params);
          b = spec == null
              ? new Built(i, null, new NullPointerException("the workload returned null for request " + i))
              : new Built(i, spec, null);
        } catch (Throwable t) {
          b = new Built(i, null, t);
        }
        try {
          while (!closed && !queue.offer(b, POLL_NANOS, TimeUnit.NANOSECONDS)) {
            // the sender is behind or waiting for a send time; keep the bound
          }
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "infermark-lookahead");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * The built request with the given index (requests come in schedule order); waits for it until
   * {@code deadline}, a reading of {@code clock}, and then reports it as not built.
   */
  Built take(long index, long deadline, Clock clock) {
    try {
      while (true) {
        Built b = queue.poll(POLL_NANOS, TimeUnit.NANOSECONDS);
        if (b != null) {
          if (b.index() != index) {
            throw new IllegalStateException("look-ahead out of order: expected " + index + ", got " + b.index());
          }
          return b;
        }
        if (clock.nanoTime() >= deadline || !thread.isAlive() && queue.isEmpty()) {
          return new Built(index, null, new IllegalStateException("request " + index + " was not built in time"));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Built(index, null, e);
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
