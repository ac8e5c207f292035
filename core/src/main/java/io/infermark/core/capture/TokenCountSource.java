package io.infermark.core.capture;

/** Where a request's output token count N came from; recorded on every record. */
public enum TokenCountSource {
  /** The server's final usage report ({@code usage.completion_tokens} or its dialect's equivalent). */
  SERVER_USAGE,
  /** The sum of per-chunk token counts the server sent (continuous usage, one token per event). */
  CHUNK_TOKENS,
  /** A client-side count of token-bearing chunks, assuming one token each; the least exact source. */
  CHUNK_COUNT,
  /** No tokens were received. */
  NONE
}
