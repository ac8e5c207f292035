package io.infermark.testkit.simulator;

import java.util.OptionalInt;

/**
 * A validated generation request: only what the simulator's behaviour depends on.
 *
 * @param maxTokens {@code max_tokens} (or chat's {@code max_completion_tokens}), if set
 * @param includeUsage {@code stream_options.include_usage}
 * @param continuousUsage vLLM's {@code stream_options.continuous_usage_stats}, which (as in vLLM)
 *     only takes effect together with {@code include_usage}
 * @param promptTokenHashes one hash per prompt token, for the prefix cache
 */
record GenerationRequest(Endpoint endpoint, boolean stream, boolean includeUsage, boolean continuousUsage,
    OptionalInt maxTokens, boolean ignoreEos, int promptTokens, long[] promptTokenHashes) {

  /**
   * The number of tokens to generate: with {@code ignore_eos}, exactly {@code max_tokens} (the
   * natural length when unset); otherwise the natural length cut at {@code max_tokens}.
   */
  int outputTokens(int naturalLength) {
    if (ignoreEos) {
      return maxTokens.orElse(naturalLength);
    }
    return maxTokens.isPresent() ? Math.min(maxTokens.getAsInt(), naturalLength) : naturalLength;
  }

  /** {@code "length"} when generation hit a token limit, {@code "stop"} when it ended naturally. */
  String finishReason(int naturalLength) {
    boolean limited = ignoreEos || (maxTokens.isPresent() && maxTokens.getAsInt() <= naturalLength);
    return limited ? "length" : "stop";
  }

  boolean usagePerChunk() {
    return includeUsage && continuousUsage;
  }
}
