package io.infermark.testkit.simulator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simplest engine: every admitted request runs on its own, undisturbed by the others,
 * emitting its first token a fixed time after admission and each next token a fixed interval
 * later; at most {@code maxConcurrency} requests run at once and the rest wait their turn in
 * arrival order (a fair semaphore), with the wait counting toward their time to first token.
 *
 * <p>Token {@code i} is due at {@code admitted + ttft + i * interval}, an absolute deadline
 * computed from admission, so oversleeping one token never delays the next: the schedule does
 * not drift however late individual wake-ups are.
 *
 * <p>Requests submitted with a {@link Push} (fault-free streams) hold no thread: one daemon
 * thread, the clock, admits them in arrival order, keeps them in a queue ordered by when their
 * next token is due, and at each wake-up releases every token due by then and writes each such
 * stream's ready events in one non-blocking write. The clock wakes on a grid of
 * {@link #resolutionNanos} (a tenth of the shorter of the TTFT and the interval, between 20 µs and
 * 1 ms), so a pushed token goes out up to one grid step after it is due, never before, and hundreds
 * of streams cost at most one timer wake-up per grid step instead of one per token: on a virtual
 * machine, where arming a timer and waking a thread cost tens of microseconds, that is most of the
 * simulator's CPU. With the interval a multiple of the grid step, as with the defaults, every
 * token after the first keeps the exact interval; only the first is up to one step late. Requests waiting in
 * {@link Generation#awaitToken} (streams with a fault, non-streamed responses) park their own
 * thread until each deadline, as before.
 */
final class RealTimeServingModel implements ServingModel {

  private static final Logger log = LoggerFactory.getLogger(RealTimeServingModel.class);

  static final long MIN_RESOLUTION_NANOS = 20_000;
  static final long MAX_RESOLUTION_NANOS = 1_000_000;

  private final long ttftNanos;
  private final long intervalNanos;
  private final Semaphore slots; // null when unlimited
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicInteger waiting = new AtomicInteger();
  private final AtomicLong generated = new AtomicLong();
  private final AtomicLong prompts = new AtomicLong();

  // Pushed requests: handed to the clock thread through the inbox; the rest is the clock's own.
  private final ConcurrentLinkedQueue<Scheduled> inbox = new ConcurrentLinkedQueue<>();
  private final ArrayDeque<Scheduled> queued = new ArrayDeque<>(); // waiting for a slot, in arrival order
  private final GridWheel<Scheduled> due = new GridWheel<>(1024); // by the grid step of their next token
  private final ArrayList<Scheduled> dueNow = new ArrayList<>();
  private final ArrayList<Scheduled> progressed = new ArrayList<>();
  private final AtomicInteger pushedWaiting = new AtomicInteger();
  private final long resolutionNanos;
  private final long origin = System.nanoTime();
  private final Thread clock;
  private volatile boolean clockParked;
  private volatile boolean closed;

  RealTimeServingModel(SimulatorConfig config) {
    this.ttftNanos = config.timeToFirstToken().toNanos();
    this.intervalNanos = config.interTokenInterval().toNanos();
    int limit = config.maxConcurrencyOrUnlimited();
    this.slots = limit == Integer.MAX_VALUE ? null : new Semaphore(limit, true);
    long shorter = ttftNanos == 0 ? intervalNanos : intervalNanos == 0 ? ttftNanos : Math.min(ttftNanos, intervalNanos);
    this.resolutionNanos = Math.max(MIN_RESOLUTION_NANOS, Math.min(MAX_RESOLUTION_NANOS, shorter / 10));
    this.clock = new Thread(this::tick, "infermark-sim-clock");
    clock.setDaemon(true);
    clock.start();
  }

  @Override
  public Generation submit(String requestId, long arrivalNanos, int promptTokens, long[] promptTokenHashes,
      int outputTokens) {
    return new Scheduled(requestId, arrivalNanos, promptTokens, outputTokens, null);
  }

  @Override
  public boolean pushes() {
    return true;
  }

  @Override
  public Generation submit(String requestId, long arrivalNanos, int promptTokens, long[] promptTokenHashes,
      int outputTokens, Push push) {
    Scheduled s = new Scheduled(requestId, arrivalNanos, promptTokens, outputTokens, push);
    pushedWaiting.incrementAndGet();
    inbox.add(s);
    wakeClock();
    return s;
  }

  @Override
  public EngineStats stats() {
    return new EngineStats(0, 0, running.get(), waiting.get() + pushedWaiting.get(), 0, 0, 0, 0, 0, 0, 0, 0,
        prompts.get(), generated.get(), 0, 0, 0, 0, 0);
  }

  @Override
  public void close() {
    closed = true;
    clock.interrupt();
    try {
      clock.join(TimeUnit.SECONDS.toMillis(2));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void wakeClock() {
    if (clockParked) {
      LockSupport.unpark(clock);
    }
  }

  /**
   * The clock thread: admits queued pushed requests while slots are free, releases every token due
   * by now, writes the streams that progressed, and sleeps until the next token is due or a
   * request arrives.
   */
  private void tick() {
    // Pushed streams still open when the simulator closes end when the server drops their connections.
    try {
      while (!closed) {
        Scheduled s;
        while ((s = inbox.poll()) != null) {
          queued.addLast(s);
        }
        admitQueued();
        long now = System.nanoTime();
        due.pollDue(Math.floorDiv(now - origin, resolutionNanos), dueNow);
        for (int i = 0; i < dueNow.size(); i++) {
          Scheduled g = dueNow.get(i);
          if (g.closed) {
            continue;
          }
          g.releaseDue(now); // every token due by now: at least one, since its grid point has passed
          if (g.reached < g.outputTokens) {
            due.add(g, gridStep(g.dueNanos(g.reached)));
          }
        }
        dueNow.clear();
        for (int i = 0; i < progressed.size(); i++) {
          Scheduled g = progressed.get(i);
          g.queuedForFlush = false;
          try {
            g.push.flush();
          } catch (RuntimeException e) {
            log.error("simulator failed writing the output of {}", g.id, e);
          }
        }
        progressed.clear();
        clockParked = true;
        // Checked after announcing the park: a slot freed from now on sees clockParked and unparks.
        if (inbox.isEmpty() && !admittable()) {
          if (due.isEmpty()) {
            LockSupport.park(this);
          } else {
            long wait = origin + due.nextStep() * resolutionNanos - System.nanoTime();
            if (wait > 0) {
              LockSupport.parkNanos(this, wait);
            }
          }
        }
        clockParked = false;
        if (Thread.interrupted() && closed) {
          return;
        }
      }
    } catch (InterruptedException e) {
      // closing
    } catch (RuntimeException | Error e) {
      log.error("simulator clock failed; pushed requests in flight will not finish", e);
      throw e;
    }
  }

  /** The first grid step at or after {@code nanos}: when the clock wakes for something due then. */
  private long gridStep(long nanos) {
    return Math.floorDiv(nanos - origin + resolutionNanos - 1, resolutionNanos);
  }

  /** Whether a queued request could be admitted now (a slot is free and no thread waits for it). */
  private boolean admittable() {
    return !queued.isEmpty() && (slots == null || (slots.availablePermits() > 0 && !slots.hasQueuedThreads()));
  }

  /** Admits queued requests in arrival order while slots are free (behind any thread already waiting). */
  private void admitQueued() throws InterruptedException {
    while (!queued.isEmpty()) {
      Scheduled g = queued.peekFirst();
      if (g.closed) {
        queued.pollFirst();
        pushedWaiting.decrementAndGet();
        continue;
      }
      // A timed tryAcquire honours the fair semaphore's queue: a handler thread already waiting goes first.
      if (slots != null && !slots.tryAcquire(0, TimeUnit.NANOSECONDS)) {
        return;
      }
      queued.pollFirst();
      pushedWaiting.decrementAndGet();
      if (!g.admitNow()) {
        continue; // closed meanwhile; its slot went back
      }
      g.progressed();
      due.add(g, gridStep(g.dueNanos(0)));
    }
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

    private final String id;
    private final long arrival;
    private final int promptTokens;
    private final int outputTokens;
    private final Push push; // null: a thread waits in awaitToken
    private volatile long admitted = ServerTimeline.NO_TIME;
    private volatile int reached; // tokens generated (released to a pushed stream)
    private volatile boolean closed;
    private boolean queuedForFlush; // clock thread only

    Scheduled(String id, long arrival, int promptTokens, int outputTokens, Push push) {
      this.id = id;
      this.arrival = arrival;
      this.promptTokens = promptTokens;
      this.outputTokens = outputTokens;
      this.push = push;
    }

    long dueNanos(int index) {
      return admitted + ttftNanos + index * intervalNanos;
    }

    /** Takes the slot the clock acquired for it; false (slot returned) if it was closed meanwhile. */
    synchronized boolean admitNow() {
      if (closed) {
        if (slots != null) {
          slots.release();
        }
        return false;
      }
      running.incrementAndGet();
      admitted = System.nanoTime();
      return true;
    }

    /** On the clock thread: releases every token due by {@code now} and gathers the stream's ready events. */
    void releaseDue(long now) {
      int count = intervalNanos == 0 ? outputTokens
          : (int) Math.min(outputTokens, (now - (admitted + ttftNanos)) / intervalNanos + 1);
      if (count > reached) {
        if (reached == 0) {
          prompts.addAndGet(promptTokens);
        }
        generated.addAndGet(count - reached);
        reached = count;
        progressed();
      }
    }

    void progressed() {
      try {
        push.progressed();
      } catch (RuntimeException e) {
        log.error("simulator failed rendering the output of {}", id, e);
      }
      if (!queuedForFlush) {
        queuedForFlush = true;
        progressed.add(this);
      }
    }

    @Override
    public long awaitAdmission() throws InterruptedException {
      if (push != null) {
        if (admitted == ServerTimeline.NO_TIME) {
          throw new IllegalStateException("a pushed request is admitted by the clock; ask isAdmitted() first");
        }
        return admitted;
      }
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
      if (push != null) {
        return index < reached; // what the clock released, so a stream's write never runs ahead of it
      }
      return admitted != ServerTimeline.NO_TIME && System.nanoTime() - dueNanos(index) >= 0;
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
    public synchronized void close() {
      if (!closed) {
        closed = true;
        if (admitted != ServerTimeline.NO_TIME) {
          running.decrementAndGet();
          if (slots != null) {
            slots.release();
            if (pushedWaiting.get() > 0) {
              wakeClock(); // a queued pushed request may take the slot
            }
          }
        }
      }
    }
  }
}
