package io.infermark.testkit.simulator;

import java.util.Arrays;

/**
 * One request inside the engine: its prompt and output lengths, how much of it is in the KV cache,
 * which blocks it holds, and the times of everything that happened to it. Written only by the
 * engine's thread; {@link #generated} and {@link #state} are volatile so a thread waiting for a
 * token sees the token's time once it sees the count.
 */
final class Sequence {

  enum State { WAITING, RUNNING, FINISHED, ABORTED }

  /** Told about progress, on the engine's thread. */
  interface Listener {
    /** A step admitted the sequence, or emitted tokens, or ended it. */
    void progressed(Sequence sequence);
  }

  static final Listener NO_LISTENER = s -> { };

  final String id;
  final long arrivalNanos;
  final int promptTokens;
  final int outputTokens;
  /** Content hashes of the prompt's full blocks, chained, so equal hashes mean equal prefixes. */
  final long[] blockHashes;
  final Listener listener;

  volatile State state = State.WAITING;
  /** Set once, after {@link #admissionNanos}, when the sequence is first admitted. */
  volatile boolean admitted;
  volatile int generated;
  /** Tokens whose KV is computed. */
  int computed;
  /** Leading prompt blocks held as references to cached blocks. */
  int hashedBlocks;
  /** Blocks held privately (not in the prefix cache). */
  int privateBlocks;
  /** Tokens whose KV was swapped to host memory at a preemption (0 when not swapped out). */
  int swappedTokens;

  long admissionNanos = ServerTimeline.NO_TIME;
  long prefillStartNanos = ServerTimeline.NO_TIME;
  long prefillEndNanos = ServerTimeline.NO_TIME;
  long finishNanos = ServerTimeline.NO_TIME;
  int cachedPromptTokens;
  final long[] tokenNanos;
  long[] preemptionNanos = new long[0];

  Sequence(String id, long arrivalNanos, int promptTokens, int outputTokens, long[] blockHashes, Listener listener) {
    this.id = id;
    this.arrivalNanos = arrivalNanos;
    this.promptTokens = promptTokens;
    this.outputTokens = outputTokens;
    this.blockHashes = blockHashes;
    this.listener = listener;
    this.tokenNanos = new long[outputTokens];
  }

  /** Prompt plus tokens generated so far: what the KV cache must hold before the next token. */
  int totalTokens() {
    return promptTokens + generated;
  }

  int heldBlocks() {
    return hashedBlocks + privateBlocks;
  }

  void preempted(long nanos) {
    preemptionNanos = Arrays.copyOf(preemptionNanos, preemptionNanos.length + 1);
    preemptionNanos[preemptionNanos.length - 1] = nanos;
  }

  boolean done() {
    State s = state;
    return s == State.FINISHED || s == State.ABORTED;
  }

  /**
   * A snapshot. Exact once the sequence is done (read from another thread after seeing
   * {@link #done()}); while it runs on another thread, the token times are exact and the rest best effort.
   */
  SequenceTimeline timeline() {
    State s = state; // volatile reads first: what the engine wrote before them is visible
    int g = generated;
    return new SequenceTimeline(id, arrivalNanos, promptTokens, outputTokens, admissionNanos, prefillStartNanos,
        prefillEndNanos, Arrays.copyOf(tokenNanos, g), s == State.ABORTED ? ServerTimeline.NO_TIME : finishNanos,
        preemptionNanos.clone(), cachedPromptTokens);
  }
}
