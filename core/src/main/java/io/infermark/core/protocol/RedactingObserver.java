package io.infermark.core.protocol;

import io.infermark.core.capture.Failure;
import io.infermark.core.capture.StreamObserver;

/**
 * Passes every event through, redacting every text a server or transport wrote (failure messages,
 * retry reasons, redirect locations): in-stream errors and 200 JSON error objects can echo a
 * rejected key as well as HTTP error bodies can.
 */
final class RedactingObserver extends ForwardingObserver {

  private final Redactor redactor;

  RedactingObserver(StreamObserver delegate, Redactor redactor) {
    super(delegate);
    this.redactor = redactor;
  }

  @Override
  public void onRetry(String reason) {
    delegate.onRetry(redactor.redact(reason));
  }

  @Override
  public void onRetryAfter(String rawValue) {
    delegate.onRetryAfter(redactor.redact(rawValue));
  }

  @Override
  public void onRedirect(int httpStatus, String url) {
    delegate.onRedirect(httpStatus, redactor.redact(url));
  }

  @Override
  public void onAnnotation(String name, String value) {
    delegate.onAnnotation(name, redactor.redact(value));
  }

  @Override
  public void onFailure(Failure failure, long nanoTime) {
    delegate.onFailure(new Failure(failure.category(), failure.httpStatus(), failure.timeoutPhase(),
        redactor.redact(failure.message())), nanoTime);
  }
}
