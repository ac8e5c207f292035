package io.infermark.core.capture;

/** Which timeout fired, for failures of category {@link ErrorCategory#TIMEOUT}. */
public enum TimeoutPhase {
  /** Establishing the TCP (and TLS) connection took too long. */
  CONNECT,
  /** Writing the request took too long. */
  WRITE,
  /** No byte arrived within the read timeout: waiting for headers or between chunks. */
  READ,
  /** The whole call exceeded its overall deadline. */
  CALL,
  /** A client-side pipeline stage (an agent session's tool call) outlived its timeout. */
  STAGE,
  /** Not a timeout failure. */
  NONE
}
