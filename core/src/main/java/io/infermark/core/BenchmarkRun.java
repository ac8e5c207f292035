package io.infermark.core;

import io.infermark.core.run.RunEngine;
import io.infermark.core.run.RunLifecycle;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A run started with {@link Benchmark#start()}: it goes on in the background until its load
 * profile's limits end it, or until {@link #stop(Duration)} asks it to stop from any thread.
 *
 * <pre>{@code
 * BenchmarkRun run = benchmark.start();
 * Runtime.getRuntime().addShutdownHook(new Thread(() -> run.stop(Duration.ofSeconds(10))));
 * RunResult result = run.await();           // marked interrupted if it was stopped
 * }</pre>
 *
 * <p>A stop is graceful: no request is issued after it, requests in flight get the drain time to
 * finish, and what is still in flight then is cancelled and recorded as
 * {@link io.infermark.core.capture.ErrorCategory#CANCELLED}; scheduled requests never sent are
 * recorded as {@link io.infermark.core.capture.ErrorCategory#NOT_SENT}. The result's
 * {@link RunResult#interruption()} says why, when and how many of each. A second stop can shorten
 * the drain ({@link #cancel()} ends it at once), never lengthen it.
 */
public final class BenchmarkRun {

  private final RunLifecycle lifecycle;
  private final CompletableFuture<RunResult> result;
  private final Thread thread;

  private BenchmarkRun(RunLifecycle lifecycle, CompletableFuture<RunResult> result, Thread thread) {
    this.lifecycle = lifecycle;
    this.result = result;
    this.thread = thread;
  }

  /** Starts the engine on a thread of its own ({@code infermark-run-...}). */
  static BenchmarkRun start(RunEngine engine, RunLifecycle lifecycle) {
    CompletableFuture<RunResult> future = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        future.complete(engine.run());
      } catch (Throwable e) {
        future.completeExceptionally(e);
      }
    }, "infermark-run-" + Long.toString(System.nanoTime() & 0xFFFFFFL, 36));
    t.setDaemon(true);
    BenchmarkRun run = new BenchmarkRun(lifecycle, future, t);
    t.start();
    return run;
  }

  /**
   * Asks the run to stop: nothing more is issued, requests in flight get {@code drain} to finish,
   * and are then cancelled. Returns at once; {@link #await()} returns the result when the run has
   * ended. A later stop with a shorter drain shortens it; stops after the run ended do nothing.
   *
   * @param reason why, as the result and every report will show it (e.g. {@code "SIGTERM"})
   * @return true if this call stopped the run or shortened its drain
   */
  public boolean stop(String reason, Duration drain) {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(drain, "drain");
    if (drain.isNegative()) {
      throw new IllegalArgumentException("drain must be >= 0, was " + drain);
    }
    return lifecycle.requestStop(reason, drain);
  }

  /** {@link #stop(String, Duration)} with the reason "stopped by the host". */
  public boolean stop(Duration drain) {
    return stop("stopped by the host", drain);
  }

  /** Stops at once: requests in flight are cancelled without a drain. */
  public boolean cancel() {
    return stop("cancelled by the host", Duration.ZERO);
  }

  /** True once the run has ended and its result is ready. */
  public boolean isDone() {
    return result.isDone();
  }

  /** True once a stop was asked for (the run may still be draining). */
  public boolean isStopping() {
    return lifecycle.stopRequested();
  }

  /**
   * Waits for the run to end and returns its result.
   *
   * @throws IllegalStateException if the run failed (its cause attached) or the waiting thread was interrupted
   */
  public RunResult await() {
    try {
      return result.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the run; it goes on (stop() it)", e);
    } catch (ExecutionException e) {
      throw failure(e.getCause());
    }
  }

  /**
   * Waits at most {@code timeout} for the run to end.
   *
   * @return the result, or empty if the run is still going
   * @throws IllegalStateException if the run failed or the waiting thread was interrupted
   */
  public Optional<RunResult> await(Duration timeout) {
    try {
      return Optional.of(result.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the run; it goes on (stop() it)", e);
    } catch (ExecutionException e) {
      throw failure(e.getCause());
    }
  }

  /** The run's result as a future, for hosts that compose asynchronously. */
  public CompletableFuture<RunResult> result() {
    return result.copy();
  }

  private static RuntimeException failure(Throwable cause) {
    if (cause instanceof RuntimeException r) {
      return r;
    }
    return new IllegalStateException("the run failed: " + cause, cause);
  }

  @Override
  public String toString() {
    return "BenchmarkRun[" + (result.isDone() ? "done" : lifecycle.state().name().toLowerCase(java.util.Locale.ROOT))
        + (lifecycle.stopRequested() ? ", stop requested: " + lifecycle.stop().orElseThrow().reason() : "") + ", "
        + thread.getName() + "]";
  }
}
