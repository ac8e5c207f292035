package io.infermark.core.workload;

import java.util.List;
import java.util.Objects;

/**
 * One request of a timestamped trace (Mooncake's JSONL fields).
 *
 * @param timestampMs {@code timestamp}: when it arrived, milliseconds from any origin
 * @param inputLength {@code input_length}: input tokens
 * @param outputLength {@code output_length}: output tokens
 * @param hashIds {@code hash_ids}: one id per block of input tokens; requests sharing a block id
 *     share that block of their prompt (a prefix-cache hit on a server that caches it)
 * @param line the line of the trace file it came from, from 1
 */
public record TraceEntry(long timestampMs, int inputLength, int outputLength, List<Long> hashIds, int line) {

  /** Validates and copies. */
  public TraceEntry {
    hashIds = List.copyOf(Objects.requireNonNull(hashIds, "hashIds"));
    if (inputLength < 1) {
      throw new IllegalArgumentException("line " + line + ": input_length must be >= 1, was " + inputLength);
    }
    if (outputLength < 1) {
      throw new IllegalArgumentException("line " + line + ": output_length must be >= 1, was " + outputLength);
    }
  }
}
