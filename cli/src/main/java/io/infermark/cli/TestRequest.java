package io.infermark.cli;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import java.util.Optional;

/**
 * What {@code bench} says when the one request it sends before its run (as vLLM's client does; see
 * {@code VllmCompatOptions.readyCheck}) failed: the URL it went to, the server's own (redacted, bounded) answer,
 * and, for the failures whose cause is known, what to check.
 */
final class TestRequest {

  private TestRequest() {}

  /** What went wrong, where, and what to check. */
  static String message(String url, Optional<Failure> failure) {
    String what = failure.map(Object::toString).orElse("no token received");
    String hint = failure.map(TestRequest::hint).orElse("");
    return "the initial test request to " + url + " failed, check --base-url/--url, --endpoint and --model: " + what
        + hint;
  }

  private static String hint(Failure f) {
    if (f.category() == ErrorCategory.HTTP_STATUS && (f.httpStatus() == 404 || f.httpStatus() == 405)) {
      return " (the server does not serve that path; --endpoint is sent exactly as given: vLLM, SGLang and most "
          + "servers serve /v1/chat/completions, a server mounted at its root /chat/completions)";
    }
    if (f.category() == ErrorCategory.EMPTY_RESPONSE) {
      return " (the server answered without a single token: check --model, --max-tokens (some servers read it as "
          + "prompt + output) and the server's log)";
    }
    return "";
  }
}
