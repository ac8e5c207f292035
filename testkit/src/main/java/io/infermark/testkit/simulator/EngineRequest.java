package io.infermark.testkit.simulator;

import java.time.Duration;
import java.util.Objects;

/**
 * One request for a {@link VirtualEngine}: when it arrives, how long its prompt is, how many tokens
 * it generates, and optionally a prompt prefix it shares with other requests (same group, same
 * leading tokens), which the prefix cache can reuse.
 *
 * <pre>{@code
 * EngineRequest.of("r1", Duration.ofMillis(5), 600, 128).withSharedPrefix(7, 512)
 * }</pre>
 *
 * @param id the request's id, reported in its {@link SequenceTimeline}
 * @param arrivalNanos virtual arrival time, ≥ 0
 * @param promptTokens prompt length, ≥ 1
 * @param outputTokens tokens to generate, ≥ 1
 * @param prefixGroup requests with the same group share their first {@code prefixTokens} tokens
 * @param prefixTokens how many leading prompt tokens are the group's shared prefix (0 = none shared)
 */
public record EngineRequest(String id, long arrivalNanos, int promptTokens, int outputTokens, long prefixGroup,
    int prefixTokens) {

  /** Validates. */
  public EngineRequest {
    Objects.requireNonNull(id, "id");
    if (arrivalNanos < 0) {
      throw new IllegalArgumentException("arrivalNanos must be >= 0, was " + arrivalNanos);
    }
    if (promptTokens < 1) {
      throw new IllegalArgumentException("promptTokens must be at least 1, was " + promptTokens);
    }
    if (outputTokens < 1) {
      throw new IllegalArgumentException("outputTokens must be at least 1, was " + outputTokens);
    }
    if (prefixTokens < 0 || prefixTokens > promptTokens) {
      throw new IllegalArgumentException("prefixTokens must be between 0 and promptTokens (" + promptTokens
          + "), was " + prefixTokens);
    }
  }

  /** A request arriving {@code arrival} after the start, sharing no prefix. */
  public static EngineRequest of(String id, Duration arrival, int promptTokens, int outputTokens) {
    Objects.requireNonNull(arrival, "arrival");
    return new EngineRequest(id, arrival.toNanos(), promptTokens, outputTokens, 0, 0);
  }

  /** This request with its first {@code tokens} prompt tokens equal to every other request of {@code group}'s. */
  public EngineRequest withSharedPrefix(long group, int tokens) {
    return new EngineRequest(id, arrivalNanos, promptTokens, outputTokens, group, tokens);
  }

  /**
   * The chained content hashes of the prompt's full blocks: blocks inside the shared prefix hash
   * the group and position, later ones the request's id, so only shared blocks can match.
   */
  long[] blockHashes(int blockSize, long salt) {
    long[] tokenHashes = new long[promptTokens];
    long own = Mix.mix64(salt, id.hashCode()) ^ id.length();
    for (int i = 0; i < promptTokens; i++) {
      tokenHashes[i] = i < prefixTokens ? Mix.mix64(prefixGroup, i) : Mix.mix64(own, i);
    }
    return PromptHashes.blocks(tokenHashes, blockSize);
  }
}
