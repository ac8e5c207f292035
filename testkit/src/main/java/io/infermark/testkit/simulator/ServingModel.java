package io.infermark.testkit.simulator;

/**
 * Decides when requests start generating and when each of their tokens is ready: the part of
 * the simulator that models the inference engine. The HTTP side submits a request, waits for its
 * admission and then for each token, and writes each chunk as soon as its tokens are ready, so a
 * different scheduling model changes timing without touching the wire format.
 *
 * <p>Two models exist: {@link RealTimeServingModel}, where every request runs alone at a fixed
 * TTFT and inter-token interval, and {@link EngineServingModel}, the continuous-batching engine.
 * Both push fault-free streams from their own thread, so a stream holds no thread of its own.
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

  /**
   * Whether this model can drive a request's response itself, through
   * {@link #submit(String, long, int, long[], int, Push)}, so the request needs no thread of its own.
   */
  default boolean pushes() {
    return false;
  }

  /**
   * Starts serving a request whose progress is reported to {@code push} on the model's own thread,
   * instead of to a thread waiting in {@link Generation#awaitToken}; never blocks.
   *
   * @throws UnsupportedOperationException unless {@link #pushes()}
   */
  default Generation submit(String requestId, long arrivalNanos, int promptTokens, long[] promptTokenHashes,
      int outputTokens, Push push) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " does not push progress");
  }

  /** Whether the model can serve now ({@code GET /health} answers 200), false while its weights load. */
  default boolean ready() {
    return true;
  }

  /** The engine's counters now, for {@code /metrics}. */
  EngineStats stats();

  /** Stops the model's threads; waiting requests are interrupted by their handlers' shutdown. */
  @Override
  void close();

  /**
   * Told about a pushed request's progress on the model's thread: {@link #progressed()} whenever a
   * step admitted it, generated tokens for it or aborted it, then {@link #flush()} once at the end of
   * every such step, so a step's output for many requests goes out as one write per connection.
   */
  interface Push {
    /** The request was admitted, got tokens, or was aborted; gather what is now ready to send. */
    void progressed();

    /** Send what was gathered since the last flush. */
    void flush();
  }

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

    /** Whether the request has been admitted (so {@link #awaitAdmission} would not block). */
    boolean isAdmitted();

    /** Whether token {@code index} has been generated already (so {@link #awaitToken} would not block). */
    boolean isReady(int index);

    /** What the engine did with the request so far (prefill, preemptions, cache hits). */
    SequenceTimeline engineTimeline();

    /** Releases the request's capacity (aborting it if unfinished); idempotent. */
    @Override
    void close();
  }
}
