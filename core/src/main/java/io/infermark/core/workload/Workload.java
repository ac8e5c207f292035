package io.infermark.core.workload;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import java.util.List;

/**
 * What each scheduled request sends. Request {@code i} gets {@link #request(long, long, GenerationParams)}
 * for open loop; each closed-loop stream gets its own {@link #stream(int) source}, which by default
 * asks the same method. Implementations are immutable and thread-safe, and a request's spec is a
 * function of its index (and intended time) only, so runs and their shards are reproducible.
 *
 * <p>{@code Benchmark.prompts(...)} is the simple form: {@link #cycle(List)}.
 */
public interface Workload {

  /**
   * The request at a schedule position.
   *
   * @param index the request's position in the run's schedule, from 0
   * @param intendedNanos when the schedule meant to send it, from the run's origin (for a closed
   *     loop: when its stream became ready)
   * @param defaults the run's generation parameters, to return as they are or adjust
   */
  RequestSpec request(long index, long intendedNanos, GenerationParams defaults);

  /** How many distinct prompts the workload draws from, reported with the result; 0 if not fixed. */
  default int distinctPrompts() {
    return 0;
  }

  /**
   * Whether the workload reads responses' text ({@code RequestRecord.text()}) to build later
   * requests; if so the run captures text.
   */
  default boolean needsText() {
    return false;
  }

  /** The source of closed-loop stream {@code stream}'s requests; by default stateless. */
  default StreamSource stream(int stream) {
    return (index, elapsedNanos, defaults) -> request(index, elapsedNanos, defaults);
  }

  /** Request {@code i} sends prompt {@code i mod prompts.size()} with the run's parameters. */
  static Workload cycle(List<Prompt> prompts) {
    return new CycleWorkload(prompts);
  }
}
