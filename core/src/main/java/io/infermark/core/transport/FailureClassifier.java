package io.infermark.core.transport;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.TimeoutPhase;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import javax.net.ssl.SSLException;

/**
 * Maps what went wrong in an HTTP exchange to a {@link Failure} category. Exception messages name
 * hosts and causes, never request headers, so credentials cannot leak through them.
 */
final class FailureClassifier {

  private FailureClassifier() {}

  /**
   * Classifies an I/O failure.
   *
   * @param e what the HTTP client threw
   * @param cancelled whether the engine cancelled the call
   * @param callTimedOut whether the overall call deadline had passed
   * @param progress how far the call got
   */
  static Failure classify(IOException e, boolean cancelled, boolean callTimedOut, PhaseListener progress) {
    if (cancelled) {
      return Failure.of(ErrorCategory.CANCELLED, "cancelled by the run");
    }
    String detail = describe(e);
    if (callTimedOut) {
      return Failure.timeout(TimeoutPhase.CALL, "call timeout: " + detail);
    }
    if (e instanceof SocketTimeoutException) {
      if (!progress.connected()) {
        return Failure.timeout(TimeoutPhase.CONNECT, "connect timeout: " + detail);
      }
      if (!progress.requestSent()) {
        return Failure.timeout(TimeoutPhase.WRITE, "write timeout: " + detail);
      }
      return Failure.timeout(TimeoutPhase.READ, "read timeout: " + detail);
    }
    if (e instanceof ConnectException || e instanceof UnknownHostException || e instanceof NoRouteToHostException
        || (e instanceof SSLException && !progress.requestSent())) {
      return Failure.of(ErrorCategory.CONNECT, detail);
    }
    if (e instanceof ProtocolException && !isUnexpectedEnd(e)) {
      return Failure.of(ErrorCategory.MALFORMED_STREAM, "invalid HTTP from the server: " + detail);
    }
    if (isStreamReset(e) || e instanceof EOFException || e instanceof ProtocolException
        || e instanceof SocketException || isUnexpectedEnd(e)) {
      return Failure.of(ErrorCategory.RESET, detail);
    }
    if (e instanceof InterruptedIOException) {
      return Failure.timeout(TimeoutPhase.CALL, "interrupted: " + detail);
    }
    return Failure.of(ErrorCategory.CLIENT, detail);
  }

  /** HTTP/2 RST_STREAM; matched by name because OkHttp keeps the class in an internal package. */
  private static boolean isStreamReset(IOException e) {
    return e.getClass().getSimpleName().equals("StreamResetException");
  }

  private static boolean isUnexpectedEnd(IOException e) {
    String m = String.valueOf(e.getMessage());
    return m.contains("unexpected end of stream") || m.contains("\\n not found") || m.contains("closed");
  }

  static String describe(Throwable e) {
    String m = e.getMessage();
    String s = e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    Throwable cause = e.getCause();
    if (cause != null && cause != e && cause.getMessage() != null) {
      s += " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")";
    }
    return s;
  }
}
