package io.infermark.testkit.simulator;

/**
 * Decides when requests start generating and when each of their tokens is ready: the part of
 * the simulator that models the inference engine. The HTTP side only asks it to admit a
 * request, then waits on the returned {@link Generation} token by token and writes each chunk
 * as soon as it is ready, so a different scheduling model changes timing without touching the
 * wire format.
 */
interface ServingModel {

  /**
   * Blocks until {@code request} may start generating {@code outputTokens} tokens (waiting for
   * capacity if the model has a limit), and returns its generation.
   *
   * @throws InterruptedException if the simulator is closing
   */
  Generation admit(GenerationRequest request, int outputTokens) throws InterruptedException;

  /** One admitted request's progress through generation; closing it frees its capacity. */
  interface Generation extends AutoCloseable {

    /** When the request was admitted, in {@link System#nanoTime()} units. */
    long admittedNanos();

    /**
     * Blocks until token {@code index} (0-based) has been generated.
     *
     * @throws InterruptedException if the simulator is closing
     */
    void awaitToken(int index) throws InterruptedException;

    /** Releases the request's capacity; idempotent. */
    @Override
    void close();
  }
}
