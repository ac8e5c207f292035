package io.infermark.core.capture;

/** Why a request failed. Failed requests never enter latency statistics; they are counted by category. */
public enum ErrorCategory {
  /** The server answered with a non-2xx HTTP status. */
  HTTP_STATUS,
  /** The connection could not be established (refused, unreachable, DNS failure, TLS handshake). */
  CONNECT,
  /** A timeout fired; {@link Failure#timeoutPhase()} says which one. */
  TIMEOUT,
  /** The connection was reset or closed by the peer in the middle of the response. */
  RESET,
  /** The response could not be parsed, or ended without its protocol's terminator. */
  MALFORMED_STREAM,
  /** The server reported an error inside an otherwise well-formed stream. */
  STREAM_ERROR,
  /** The request was in flight when the run cancelled it (drain timeout or run timeout reached). */
  CANCELLED,
  /** The run ended before this scheduled request was sent; it never reached the target. */
  NOT_SENT,
  /** The client itself failed: an unexpected exception in a target or in host code. */
  CLIENT,
  /**
   * The server answered with success (a 2xx, a well-formed stream or body) but not a single token: nothing to
   * time a first token by, nothing generated. A server that drops work under load (Jlama answers most concurrent
   * requests so) would otherwise look healthy and fast.
   */
  EMPTY_RESPONSE
}
