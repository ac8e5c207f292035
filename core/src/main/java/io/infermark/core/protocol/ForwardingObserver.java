package io.infermark.core.protocol;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;

/**
 * A {@link StreamObserver} that passes every event to another: a wrapper overrides only the events it changes
 * ({@link RedactingObserver} the texts a server wrote, {@link TokenCountRefusal} one failure's message).
 */
abstract class ForwardingObserver implements StreamObserver {

  /** Where every event goes. */
  protected final StreamObserver delegate;

  ForwardingObserver(StreamObserver delegate) {
    this.delegate = delegate;
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
    delegate.onRetry(reason);
  }

  @Override
  public void onRetryAfter(String rawValue) {
    delegate.onRetryAfter(rawValue);
  }

  @Override
  public void onRedirect(int httpStatus, String url) {
    delegate.onRedirect(httpStatus, url);
  }

  @Override
  public void onAnnotation(String name, String value) {
    delegate.onAnnotation(name, value);
  }

  @Override
  public void onComplete(long nanoTime) {
    delegate.onComplete(nanoTime);
  }

  @Override
  public void onFailure(Failure failure, long nanoTime) {
    delegate.onFailure(failure, nanoTime);
  }
}
