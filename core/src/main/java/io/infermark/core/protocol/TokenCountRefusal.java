package io.infermark.core.protocol;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;

/**
 * Says what to do when a Triton model refuses the {@code return_num_output_tokens} input a target
 * sent (an older vLLM backend, TensorRT-LLM's stock {@code ensemble}: Triton refuses an input its
 * model does not declare, and the old vLLM backend a sampling parameter it does not know): a failure
 * whose message names the input gets a one-line hint to turn the token counts off. Every other event
 * passes through unchanged.
 */
final class TokenCountRefusal implements StreamObserver {

  /** The input the Triton targets send to ask for each response's token count. */
  static final String INPUT = "return_num_output_tokens";
  /** What the hint says, after the server's own message. */
  static final String HINT = "the model does not take " + INPUT + ": turn it off (returnNumOutputTokens(false), "
      + "CLI --triton-token-counts off)";

  private final StreamObserver delegate;

  private TokenCountRefusal(StreamObserver delegate) {
    this.delegate = delegate;
  }

  /** {@code observer}, with the hint added to a failure that names the input. */
  static StreamObserver hinting(StreamObserver observer) {
    return new TokenCountRefusal(observer);
  }

  /**
   * The failure with the hint after its message when the message names the input, else the failure
   * itself. The message is bounded ({@link Failure#MAX_MESSAGE_CHARS}): the server's part is what is
   * shortened, never the hint.
   */
  static Failure withHint(Failure failure) {
    String m = failure.message();
    if (!m.contains(INPUT) || m.endsWith(HINT)) {
      return failure;
    }
    int room = Failure.MAX_MESSAGE_CHARS - HINT.length() - 2;
    String server = m.length() <= room ? m : m.substring(0, room - 1) + "…";
    return new Failure(failure.category(), failure.httpStatus(), failure.timeoutPhase(), server + "; " + HINT);
  }

  @Override
  public void onFailure(Failure failure, long nanoTime) {
    delegate.onFailure(withHint(failure), nanoTime);
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
}
