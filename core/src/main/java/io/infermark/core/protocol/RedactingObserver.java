package io.infermark.core.protocol;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;

/**
 * Passes every event through, redacting every text a server or transport wrote (failure messages,
 * retry reasons, redirect locations): in-stream errors and 200 JSON error objects can echo a
 * rejected key as well as HTTP error bodies can.
 */
final class RedactingObserver implements StreamObserver {

  private final StreamObserver delegate;
  private final Redactor redactor;

  RedactingObserver(StreamObserver delegate, Redactor redactor) {
    this.delegate = delegate;
    this.redactor = redactor;
  }

  @Override
  public void onSend(long nanoTime) {
    delegate.onSend(nanoTime);
  }

  @Override
  public void onPhase(Phase phase, long nanoTime) {
    delegate.onPhase(phase, nanoTime);
  }

  @Override
  public void onResponseHeaders(int httpStatus, long nanoTime) {
    delegate.onResponseHeaders(httpStatus, nanoTime);
  }

  @Override
  public void onChunk(long nanoTime, ChunkKind kind, int tokens) {
    delegate.onChunk(nanoTime, kind, tokens);
  }

  @Override
  public void onText(ChunkKind kind, CharSequence text) {
    delegate.onText(kind, text);
  }

  @Override
  public void onToolCallDelta(int index, String id, String name, CharSequence argumentsFragment) {
    delegate.onToolCallDelta(index, id, name, argumentsFragment);
  }

  @Override
  public boolean wantsText() {
    return delegate.wantsText();
  }

  @Override
  public void onUsage(Usage usage) {
    delegate.onUsage(usage);
  }

  @Override
  public void onFinishReason(String reason) {
    delegate.onFinishReason(reason);
  }

  @Override
  public void onServerTiming(String name, double value) {
    delegate.onServerTiming(name, value);
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
  public void onComplete(long nanoTime) {
    delegate.onComplete(nanoTime);
  }

  @Override
  public void onFailure(Failure failure, long nanoTime) {
    delegate.onFailure(new Failure(failure.category(), failure.httpStatus(), failure.timeoutPhase(),
        redactor.redact(failure.message())), nanoTime);
  }
}
