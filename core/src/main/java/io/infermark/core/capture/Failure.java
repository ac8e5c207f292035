package io.infermark.core.capture;

import java.util.Objects;

/**
 * A classified failure of one request: its category, the HTTP status when there was one, which
 * timeout fired when it was a timeout, and a short human-readable message.
 *
 * <p>Messages are built from server bodies and exception messages, never from request headers, so
 * credentials cannot leak into records or reports. Body excerpts are truncated to
 * {@value #MAX_MESSAGE_CHARS} characters.
 *
 * @param category why the request failed
 * @param httpStatus the HTTP status, or 0 when no status line was received
 * @param timeoutPhase which timeout fired, {@link TimeoutPhase#NONE} for other categories
 * @param message a short description, possibly with a body excerpt; never null
 */
public record Failure(ErrorCategory category, int httpStatus, TimeoutPhase timeoutPhase, String message) {

  /** The longest message kept on a record. */
  public static final int MAX_MESSAGE_CHARS = 300;

  /** Validates and truncates. */
  public Failure {
    Objects.requireNonNull(category, "category");
    Objects.requireNonNull(timeoutPhase, "timeoutPhase");
    Objects.requireNonNull(message, "message");
    if (httpStatus < 0) {
      throw new IllegalArgumentException("httpStatus must be >= 0, was " + httpStatus);
    }
    if ((category == ErrorCategory.TIMEOUT) != (timeoutPhase != TimeoutPhase.NONE)) {
      throw new IllegalArgumentException(
          "timeoutPhase must be set exactly for TIMEOUT failures: " + category + "/" + timeoutPhase);
    }
    message = truncate(message);
  }

  /** A failure of the given category with a message. */
  public static Failure of(ErrorCategory category, String message) {
    return new Failure(category, 0, TimeoutPhase.NONE, message);
  }

  /** A non-2xx answer; {@code bodyExcerpt} is the start of the response body. */
  public static Failure httpStatus(int status, String bodyExcerpt) {
    return new Failure(ErrorCategory.HTTP_STATUS, status, TimeoutPhase.NONE,
        "HTTP " + status + (bodyExcerpt.isEmpty() ? "" : ": " + bodyExcerpt));
  }

  /** A timeout in the given phase. */
  public static Failure timeout(TimeoutPhase phase, String message) {
    return new Failure(ErrorCategory.TIMEOUT, 0, phase, message);
  }

  /** Returns a copy carrying the HTTP status of the response in which it happened. */
  public Failure withHttpStatus(int status) {
    return new Failure(category, status, timeoutPhase, message);
  }

  static String truncate(String s) {
    String oneLine = s.replace('\r', ' ').replace('\n', ' ').strip();
    return oneLine.length() <= MAX_MESSAGE_CHARS ? oneLine : oneLine.substring(0, MAX_MESSAGE_CHARS - 1) + "…";
  }

  @Override
  public String toString() {
    return category
        + (timeoutPhase == TimeoutPhase.NONE ? "" : "(" + timeoutPhase + ")")
        + (httpStatus == 0 || message.startsWith("HTTP ") ? "" : " HTTP " + httpStatus)
        + ": " + message;
  }
}
