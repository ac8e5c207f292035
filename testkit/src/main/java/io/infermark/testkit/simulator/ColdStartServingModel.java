package io.infermark.testkit.simulator;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ServingModel} in front of another that models loading the model's weights
 * ({@link ColdStart}): a request that arrives while the model is unloaded starts a load, and every
 * request arriving before the load ends is handed to the engine when it ends, on a loader thread.
 * Not loaded or loading is decided lazily from the clock: the model counts as unloaded once it has
 * had no request for the idle timeout.
 */
final class ColdStartServingModel implements ServingModel {

  private static final Logger log = LoggerFactory.getLogger(ColdStartServingModel.class);
  private static final long NEVER = Long.MIN_VALUE;

  private final ServingModel engine;
  private final long loadNanos;
  private final long idleNanos; // 0: never unload
  private final LongSupplier clock;
  private final ScheduledExecutorService loader;

  // Guarded by this.
  private long loadEnd = NEVER; // end of the latest load
  private long idleSince; // when the last request left (valid while active == 0)
  private int active;
  private long loads;

  ColdStartServingModel(ServingModel engine, ColdStart coldStart, LongSupplier clock) {
    this.engine = engine;
    this.loadNanos = coldStart.loadTime().toNanos();
    this.idleNanos = coldStart.idleTimeout().toNanos();
    this.clock = clock;
    this.loader = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sim-model-loader");
      t.setDaemon(true);
      return t;
    });
    if (coldStart.loadAtStart()) {
      startLoad(clock.getAsLong());
    }
  }

  private synchronized void startLoad(long at) {
    loadEnd = at + loadNanos;
    loads++;
    log.debug("model load {} started, ready in {} ms", loads, loadNanos / 1e6);
  }

  /** Whether no load is under way now: {@code /health} answers 200. */
  @Override
  public synchronized boolean ready() {
    return loadEnd == NEVER || clock.getAsLong() >= loadEnd;
  }

  /** Loads started so far. */
  synchronized long loads() {
    return loads;
  }

  /** Whether the model holds no weights at {@code at}: never loaded, or idle past the timeout. */
  private boolean unloadedAt(long at) {
    if (loadEnd == NEVER) {
      return true;
    }
    return idleNanos > 0 && active == 0 && at >= Math.max(idleSince, loadEnd) + idleNanos;
  }

  /** Registers an arriving request; returns when the engine may see it (its arrival, or a load's end). */
  private synchronized long arrive(long arrivalNanos) {
    if (unloadedAt(arrivalNanos)) {
      startLoad(arrivalNanos);
    }
    active++;
    return Math.max(arrivalNanos, loadEnd);
  }

  private synchronized void leave() {
    if (--active == 0) {
      idleSince = clock.getAsLong();
    }
  }

  @Override
  public String rejection(int promptTokens, int outputTokens) {
    return engine.rejection(promptTokens, outputTokens);
  }

  @Override
  public boolean pushes() {
    return engine.pushes();
  }

  @Override
  public Generation submit(String requestId, long arrivalNanos, int promptTokens, long[] promptTokenHashes,
      int outputTokens) {
    return submit(requestId, arrivalNanos, promptTokens, promptTokenHashes, outputTokens, null, false);
  }

  @Override
  public Generation submit(String requestId, long arrivalNanos, int promptTokens, long[] promptTokenHashes,
      int outputTokens, Push push) {
    return submit(requestId, arrivalNanos, promptTokens, promptTokenHashes, outputTokens, push, true);
  }

  private Generation submit(String requestId, long arrivalNanos, int promptTokens, long[] hashes, int outputTokens,
      Push push, boolean pushed) {
    long readyAt = arrive(arrivalNanos);
    Loaded g = new Loaded(requestId, arrivalNanos, readyAt - arrivalNanos, promptTokens, outputTokens, push);
    if (readyAt <= arrivalNanos) {
      // Loaded: the engine reports to the handler's own push, which waits for this submit to return.
      g.direct(pushed ? engine.submit(requestId, arrivalNanos, promptTokens, hashes, outputTokens, push)
          : engine.submit(requestId, arrivalNanos, promptTokens, hashes, outputTokens));
    } else {
      loader.schedule(() -> g.hand(requestId, readyAt, promptTokens, hashes, outputTokens, pushed),
          Math.max(0, readyAt - clock.getAsLong()), TimeUnit.NANOSECONDS);
    }
    return g;
  }

  @Override
  public EngineStats stats() {
    return engine.stats();
  }

  @Override
  public void close() {
    loader.shutdownNow();
    engine.close();
  }

  /**
   * One request's generation: the engine's once the model is loaded. Progress the engine reports
   * before the engine's handle is known here is replayed to the push once it is.
   */
  private final class Loaded implements Generation, Push {
    private final String requestId;
    private final long arrivalNanos;
    private final long waitedNanos;
    private final int promptTokens;
    private final int outputTokens;
    private final Push push;
    private final CountDownLatch handed = new CountDownLatch(1);
    private volatile Generation inner;
    private boolean missed; // guarded by this
    private boolean closed; // guarded by this

    Loaded(String requestId, long arrivalNanos, long waitedNanos, int promptTokens, int outputTokens, Push push) {
      this.requestId = requestId;
      this.promptTokens = promptTokens;
      this.outputTokens = outputTokens;
      this.arrivalNanos = arrivalNanos;
      this.waitedNanos = waitedNanos;
      this.push = push;
    }

    /** The engine's handle of a request that did not wait for a load. */
    void direct(Generation g) {
      inner = g;
      handed.countDown();
    }

    /**
     * Hands a request that waited for the load to the engine, on the loader thread: progress the
     * engine reports before its handle is stored here is replayed to the push afterwards.
     */
    void hand(String requestId, long at, int promptTokens, long[] hashes, int outputTokens, boolean pushed) {
      synchronized (this) {
        if (closed) {
          return;
        }
      }
      Generation g;
      try {
        g = pushed ? engine.submit(requestId, at, promptTokens, hashes, outputTokens, this)
            : engine.submit(requestId, at, promptTokens, hashes, outputTokens);
      } catch (RuntimeException e) {
        log.error("the engine rejected {} after the model loaded", requestId, e);
        throw e;
      }
      boolean replay;
      boolean close;
      synchronized (this) {
        inner = g;
        replay = missed;
        close = closed;
      }
      handed.countDown();
      if (close) {
        g.close();
      } else if (replay && push != null) {
        push.progressed();
        push.flush();
      }
    }

    @Override
    public void progressed() {
      synchronized (this) {
        if (inner == null) {
          missed = true;
          return;
        }
      }
      push.progressed();
    }

    @Override
    public void flush() {
      if (inner != null) {
        push.flush();
      }
    }

    @Override
    public long awaitAdmission() throws InterruptedException {
      handed.await();
      return inner.awaitAdmission();
    }

    @Override
    public long awaitToken(int index) throws InterruptedException {
      handed.await();
      return inner.awaitToken(index);
    }

    @Override
    public boolean isAdmitted() {
      Generation g = inner;
      return g != null && g.isAdmitted();
    }

    @Override
    public boolean isReady(int index) {
      Generation g = inner;
      return g != null && g.isReady(index);
    }

    @Override
    public SequenceTimeline engineTimeline() {
      Generation g = inner;
      if (g == null) {
        return new SequenceTimeline(requestId, arrivalNanos, promptTokens, outputTokens, ServerTimeline.NO_TIME, ServerTimeline.NO_TIME,
            ServerTimeline.NO_TIME, new long[0], ServerTimeline.NO_TIME, new long[0], 0)
            .withLoad(arrivalNanos, waitedNanos);
      }
      return g.engineTimeline().withLoad(arrivalNanos, waitedNanos);
    }

    @Override
    public void close() {
      Generation g;
      synchronized (this) {
        if (closed) {
          return;
        }
        closed = true;
        g = inner;
      }
      leave();
      if (g != null) {
        g.close();
      }
    }
  }
}
