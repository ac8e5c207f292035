package io.infermark.core.protocol;

import io.infermark.core.capture.Failure;
import io.infermark.core.capture.StreamObserver;

/**
 * Says what to do when a Triton model refuses the {@code return_num_output_tokens} input a target
 * sent (an older vLLM backend, TensorRT-LLM's stock {@code ensemble}: Triton refuses an input its
 * model does not declare, and the old vLLM backend a sampling parameter it does not know): a failure
 * whose message names the input gets a one-line hint to turn the token counts off. Every other event
 * passes through unchanged.
 */
final class TokenCountRefusal extends ForwardingObserver {

  /** The input the Triton targets send to ask for each response's token count. */
  static final String INPUT = "return_num_output_tokens";
  /** What the hint says, after the server's own message. */
  static final String HINT = "the model does not take " + INPUT + ": turn it off (returnNumOutputTokens(false), "
      + "CLI --triton-token-counts off)";

  private TokenCountRefusal(StreamObserver delegate) {
    super(delegate);
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
}
