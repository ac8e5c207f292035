package io.infermark.testkit.simulator;

import java.util.ArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives the {@link Engine} in real time on one daemon thread: each step is planned at its start,
 * the thread parks until the step's modelled duration has passed, and then the step's tokens are
 * released to the request handlers waiting for them. Requests and aborts reach the engine through
 * a queue it drains at the start of every step, so a request arriving mid-step waits for the next
 * one, as in a real engine.
 *
 * <p>Steps follow each other on absolute deadlines (the next starts where the last ended), so a
 * late wake-up does not stretch the schedule; after a stall longer than {@link #RESYNC_NANOS}
 * (a long GC pause, a descheduled thread) the engine restarts from the current time instead of
 * bursting to catch up.
 *
 * <p>Requests submitted with a {@link Push} hold no thread: the engine thread renders their ready
 * events at the end of each step, and a second daemon thread, the writer, writes them (one
 * non-blocking write per request per round), so slow writes never delay the engine's schedule.
 */
final class EngineServingModel implements ServingModel {

  private static final Logger log = LoggerFactory.getLogger(EngineServingModel.class);

  static final long RESYNC_NANOS = 2_000_000;

  private final Engine engine;
  private final int blockSize;
  private final ConcurrentLinkedQueue<Command> inbox = new ConcurrentLinkedQueue<>();
  private final ArrayList<Handle> progressed = new ArrayList<>(); // engine thread only
  private final ConcurrentLinkedQueue<Handle> unwritten = new ConcurrentLinkedQueue<>();
  private final Thread thread;
  private final Thread writer;
  private volatile boolean idleParked;
  private volatile boolean writerParked;
  private volatile boolean closed;
  private volatile EngineStats stats;

  private record Command(Sequence sequence, boolean abort) {}

  EngineServingModel(EngineProfile profile) {
    this.engine = new Engine(profile);
    this.blockSize = profile.blockSize();
    this.stats = engine.stats();
    this.thread = new Thread(this::loop, "infermark-sim-engine");
    thread.setDaemon(true);
    this.writer = new Thread(this::write, "infermark-sim-writer");
    writer.setDaemon(true);
    writer.start();
    thread.start();
  }

  @Override
  public String rejection(int promptTokens, int outputTokens) {
    return engine.rejection(promptTokens, outputTokens);
  }

  @Override
  public Generation submit(String requestId, long arrivalNanos, int promptTokens, long[] promptTokenHashes,
      int outputTokens) {
    return submit(requestId, arrivalNanos, promptTokens, promptTokenHashes, outputTokens, null);
  }

  @Override
  public boolean pushes() {
    return true;
  }

  @Override
  public Generation submit(String requestId, long arrivalNanos, int promptTokens, long[] promptTokenHashes,
      int outputTokens, Push push) {
    Handle handle = new Handle(push);
    handle.sequence = new Sequence(requestId, arrivalNanos, promptTokens, outputTokens,
        PromptHashes.blocks(promptTokenHashes, blockSize), handle);
    send(new Command(handle.sequence, false));
    return handle;
  }

  private void send(Command command) {
    inbox.add(command);
    if (idleParked) {
      LockSupport.unpark(thread);
    }
  }

  @Override
  public EngineStats stats() {
    return stats;
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    writer.interrupt();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(2));
      writer.join(TimeUnit.SECONDS.toMillis(2));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void loop() {
    long nextStart = -1;
    try {
      while (!closed) {
        drain();
        if (engine.idle()) {
          stats = engine.stats();
          idleParked = true;
          if (inbox.isEmpty()) {
            LockSupport.park(this);
          }
          idleParked = false;
          if (Thread.interrupted()) {
            return;
          }
          nextStart = -1;
          continue;
        }
        long now = System.nanoTime();
        long start = nextStart >= 0 && now - nextStart < RESYNC_NANOS ? nextStart : now;
        Engine.Step step = engine.plan(start);
        if (step == null) {
          nextStart = -1;
          continue;
        }
        RealTimeServingModel.parkUntil(step.endNanos());
        drainAborts();
        engine.complete(step, step.endNanos());
        flushPushed();
        stats = engine.stats();
        nextStart = step.endNanos();
      }
    } catch (InterruptedException e) {
      // closing
    } catch (RuntimeException | Error e) {
      log.error("simulator engine failed; requests in flight will not finish", e);
      throw e;
    }
  }

  private void drain() {
    Command c;
    while ((c = inbox.poll()) != null) {
      apply(c);
    }
    flushPushed();
  }

  /** Hands every pushed request that progressed in this step to the writer thread. */
  private void flushPushed() {
    if (progressed.isEmpty()) {
      return;
    }
    for (int i = 0; i < progressed.size(); i++) {
      Handle h = progressed.get(i);
      h.flushPending = false;
      if (!h.queued.getAndSet(true)) {
        unwritten.add(h);
      }
    }
    progressed.clear();
    if (writerParked) {
      LockSupport.unpark(writer);
    }
  }

  /**
   * The writer thread: writes the output of every pushed request that progressed, one write per
   * request per round, in the order they progressed. It runs beside the engine, as a real server's
   * output path runs beside its GPU: when writing falls behind (hundreds of streams on a busy CPU),
   * the engine keeps stepping on schedule and the next write of a stream carries every token it
   * got meanwhile, as vLLM's output handler merges the outputs of a slow stream.
   */
  private void write() {
    while (!closed) {
      Handle h = unwritten.poll();
      if (h == null) {
        writerParked = true;
        if (unwritten.isEmpty() && !closed) {
          LockSupport.park(this);
        }
        writerParked = false;
        continue;
      }
      h.queued.set(false); // before flushing: progress from now on queues it again
      try {
        h.push.flush();
      } catch (RuntimeException e) {
        log.error("simulator failed writing the output of {}", h.sequence.id, e);
      }
    }
  }

  // Arrivals during a step wait for the next plan; aborts must be applied before the step completes
  // so an aborted sequence's blocks are freed, and both kinds are applied in order.
  private void drainAborts() {
    drain();
  }

  private void apply(Command c) {
    if (c.abort()) {
      engine.abort(c.sequence(), System.nanoTime());
    } else {
      engine.add(c.sequence(), c.sequence().arrivalNanos);
    }
  }

  /**
   * A handler's view of its sequence. The engine tells it about progress by unparking the waiting
   * thread or, for a pushed request, by calling its {@link Push} on the engine's thread.
   */
  private final class Handle implements Generation, Sequence.Listener {

    Sequence sequence;
    final Push push; // null: a thread waits
    boolean flushPending; // engine thread only
    final AtomicBoolean queued = new AtomicBoolean(); // waiting for the writer thread
    private volatile Thread waiter;
    private boolean closed;

    Handle(Push push) {
      this.push = push;
    }

    @Override
    public void progressed(Sequence s) {
      if (push != null) {
        try {
          push.progressed();
        } catch (RuntimeException e) {
          log.error("simulator failed rendering the output of {}", s.id, e);
        }
        if (!flushPending) {
          flushPending = true;
          progressed.add(this);
        }
        return;
      }
      Thread t = waiter;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }

    @Override
    public long awaitAdmission() throws InterruptedException {
      waiter = Thread.currentThread();
      while (!sequence.admitted) {
        park();
      }
      return sequence.admissionNanos;
    }

    @Override
    public long awaitToken(int index) throws InterruptedException {
      waiter = Thread.currentThread();
      while (sequence.generated <= index) {
        park();
      }
      return sequence.tokenNanos[index];
    }

    @Override
    public boolean isAdmitted() {
      return sequence.admitted;
    }

    @Override
    public boolean isReady(int index) {
      return sequence.generated > index;
    }

    private void park() throws InterruptedException {
      if (sequence.state == Sequence.State.ABORTED || EngineServingModel.this.closed) {
        throw new InterruptedException("simulator closing");
      }
      LockSupport.park(this);
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while waiting for the engine");
      }
    }

    @Override
    public SequenceTimeline engineTimeline() {
      return sequence.timeline();
    }

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        if (!sequence.done()) {
          send(new Command(sequence, true));
        }
      }
    }
  }
}
