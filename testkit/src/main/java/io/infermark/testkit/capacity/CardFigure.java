package io.infermark.testkit.capacity;

/** What a capacity card row searches the ceiling of. */
public enum CardFigure {
  /** Streamed output tokens per second, one token per chunk (every token its own read). */
  STREAMED_TOKENS("streamed tokens/s, 1 per chunk", "tokens/s"),
  /** Streamed output tokens per second, several tokens per chunk ({@link CardSettings#tokensPerChunk()}). */
  BATCHED_TOKENS("streamed tokens/s, N per chunk", "tokens/s"),
  /** Non-streamed requests per second, sent open loop at a constant rate. */
  REQUESTS("non-streamed requests/s", "requests/s"),
  /** Streams open at once, each with long gaps between its tokens ({@link CardSettings#streamGap()}). */
  STREAMS("concurrent streams", "streams");

  private final String label;
  private final String unit;

  CardFigure(String label, String unit) {
    this.label = label;
    this.unit = unit;
  }

  /** The row's name in the card. */
  public String label() {
    return label;
  }

  /** The unit of the level searched, e.g. {@code "tokens/s"}. */
  public String unit() {
    return unit;
  }
}
