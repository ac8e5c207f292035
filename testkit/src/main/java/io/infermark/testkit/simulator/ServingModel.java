package io.infermark.testkit.simulator;

/**
 * Decides when requests start generating and when each of their tokens is ready: the part of
 * the simulator that models the inference engine. The HTTP side submits a request, waits for its
 * admission and then for each token, and writes each chunk as soon as its tokens are ready, so a
 * different scheduling model changes timing without touching the wire format.
 *
 * <p>Two models exist: {@link RealTimeServingModel}, where every request runs alone at a fixed
 * TTFT and inter-token interval, and {@link EngineServingModel}, the continuous-batching engine.
 */
interface ServingModel extends AutoCloseable {

  /**
   * Why a request of this size can never be served, or null if it can (answered with HTTP 400,
   * like vLLM's check against the model's context length).
   */
  default String rejection(int promptTokens, int outputTokens) {
    return null;
  }

  /** Starts serving a request that arrived at {@code arrivalNanos}; never blocks. */
  Generation submit(String requestId, long arrivalNanos, int promptTokens, long[] promptTokenHashes,
      int outputTokens);

  /** The engine's counters now, for {@code /metrics}. */
  EngineStats stats();

  /** Stops the model's threads; waiting requests are interrupted by their handlers' shutdown. */
  @Override
  void close();

  /** One request's progress through generation; closing it frees its capacity. */
  interface Generation extends AutoCloseable {

    /**
     * Blocks until the request is admitted and returns when, in {@link System#nanoTime()} units.
     *
     * @throws InterruptedException if the simulator is closing
     */
    long awaitAdmission() throws InterruptedException;

    /**
     * Blocks until token {@code index} (0-based) has been generated and returns when it was ready.
     *
     * @throws InterruptedException if the simulator is closing
     */
    long awaitToken(int index) throws InterruptedException;

    /** Whether token {@code index} has been generated already (so {@link #awaitToken} would not block). */
    boolean isReady(int index);

    /** What the engine did with the request so far (prefill, preemptions, cache hits). */
    SequenceTimeline engineTimeline();

    /** Releases the request's capacity (aborting it if unfinished); idempotent. */
    @Override
    void close();
  }
}
