package io.infermark.core.capture;

/**
 * What one streamed chunk carried. Only token-bearing kinds ({@link #CONTENT}, {@link #REASONING},
 * {@link #TOOL_CALL}) start the TTFT clock or delimit inter-token latencies.
 */
public enum ChunkKind {
  /** Announces the assistant role (or starts a message) without generating a token. */
  ROLE(false),
  /** Visible output text (including refusals). */
  CONTENT(true),
  /** Reasoning ("thinking") text, e.g. {@code reasoning_content}. */
  REASONING(true),
  /** A fragment of a tool call: its name, id or arguments. */
  TOOL_CALL(true),
  /** Usage statistics only, e.g. the {@code choices: []} chunk of {@code include_usage}. */
  USAGE(false),
  /** A chunk with choices but nothing generated, e.g. a finish chunk with an empty delta. */
  EMPTY(false);

  private static final ChunkKind[] VALUES = values();

  private final boolean tokenBearing;

  ChunkKind(boolean tokenBearing) {
    this.tokenBearing = tokenBearing;
  }

  /** True for chunks that carry generated tokens: content, reasoning or a tool call. */
  public boolean isTokenBearing() {
    return tokenBearing;
  }

  static ChunkKind ofOrdinal(int ordinal) {
    return VALUES[ordinal];
  }
}
