package io.infermark.core.capture;

/**
 * The capture API: what a {@code Target} (or host code wrapping its own
 * client) reports about one request while it runs. Every timestamp is a reading of the run's
 * {@link io.infermark.core.time.Clock}, taken as close to the event as possible; for chunks, when the
 * bytes that completed the chunk were read.
 *
 * <p>A request ends with exactly one of {@link #onComplete} or {@link #onFailure}; implementations
 * ignore anything reported after that. Methods are called from one thread at a time.
 */
public interface StreamObserver {

  /**
   * The request leaves the client at {@code nanoTime}: its first byte is handed to the socket, or,
   * on a new connection, connecting starts. Reported before any other event; everything before it
   * is the client's own time (building, queueing) and counts as schedule lag, not latency. Targets
   * that never report it are taken to send when the engine hands them the request.
   */
  default void onSend(long nanoTime) {}

  /** A connection milestone happened. */
  void onPhase(Phase phase, long nanoTime);

  /** The response status line and headers arrived. */
  void onResponseHeaders(int httpStatus, long nanoTime);

  /**
   * A chunk of the stream arrived.
   *
   * @param nanoTime when the bytes completing it were read
   * @param kind what it carried
   * @param tokens tokens it carried when the server says so, else {@link ChunkTimeline#UNKNOWN_TOKENS}
   */
  void onChunk(long nanoTime, ChunkKind kind, int tokens);

  /**
   * Generated text of the chunk just reported, for observers that keep text (see
   * {@link #wantsText()}). Tool-call fragments are reported through {@link #onToolCallDelta}.
   */
  default void onText(ChunkKind kind, CharSequence text) {}

  /**
   * A fragment of a tool call, for observers that keep text. {@code id} and {@code name} are empty
   * on fragments that do not repeat them.
   */
  default void onToolCallDelta(int index, String id, String name, CharSequence argumentsFragment) {}

  /** Whether this observer wants {@link #onText} and {@link #onToolCallDelta}; parsers skip decoding otherwise. */
  default boolean wantsText() {
    return false;
  }

  /** The server reported token usage; later reports refine earlier ones (see {@link Usage#merge}). */
  void onUsage(Usage usage);

  /** The server said why generation stopped ({@code stop}, {@code length}, {@code end_turn}, ...). */
  void onFinishReason(String reason);

  /** A server-side timing or counter, e.g. llama.cpp {@code timings.predicted_ms} or Ollama {@code eval_duration}. */
  void onServerTiming(String name, double value);

  /**
   * The transport sent the request once more on a new connection: a pooled keep-alive connection
   * failed before any byte of the response (the server had closed it while idle). The send time
   * stays the first attempt's.
   */
  default void onRetry(String reason) {}

  /**
   * A redirect was followed (only when the target was told to follow them).
   *
   * @param httpStatus the redirect's status (301, 302, 307 or 308)
   * @param url where it led, without userinfo or query
   */
  default void onRedirect(int httpStatus, String url) {}

  /**
   * The server answered 429 or 503 with a {@code Retry-After} header: its raw value (seconds or an HTTP
   * date), kept on the record. The default ignores it.
   */
  default void onRetryAfter(String rawValue) {}

  /**
   * Attaches a name and value to the request's record, among its tags (for instance the document
   * ids a pipeline's retrieval stage returned). A later value for a name replaces an earlier one; a
   * prompt tag of the same name is replaced. The default ignores it.
   */
  default void onAnnotation(String name, String value) {}

  /** The stream ended as its protocol intends. */
  void onComplete(long nanoTime);

  /** The request failed; chunks received before the failure are kept. */
  void onFailure(Failure failure, long nanoTime);
}
