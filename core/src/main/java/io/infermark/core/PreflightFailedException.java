package io.infermark.core;

import io.infermark.core.capture.Failure;

/**
 * The pre-flight request a run sends before its load (see {@link Benchmark#preflight(boolean)})
 * found the target misconfigured: the server refused the credentials (401, 403), does not know the
 * model or path (404), or could not be reached. The message carries the server's own (redacted)
 * answer; nothing of the run was started.
 */
public final class PreflightFailedException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final transient Failure failure;

  /** A failure of the pre-flight request to {@code target}, with a hint for the user. */
  public PreflightFailedException(String target, Failure failure, String hint) {
    super("the pre-flight request to " + target + " failed, so the run was not started: " + failure
        + (hint.isEmpty() ? "" : "; " + hint) + " (turn the check off with Benchmark.preflight(false))");
    this.failure = failure;
  }

  /** What the pre-flight request ended with. */
  public Failure failure() {
    return failure;
  }
}
