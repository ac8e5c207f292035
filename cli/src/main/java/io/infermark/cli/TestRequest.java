package io.infermark.cli;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.health.ClientMonitoring;
import io.infermark.core.load.LoadProfile;
import java.util.Optional;

/**
 * The one request {@code bench} sends before its run, as vLLM's client does: it fails fast, with the server's
 * own (redacted, bounded) answer and the URL it went to, when the URL, endpoint, model or flags are wrong, and it
 * warms the connection and the JIT up. It is not counted.
 */
final class TestRequest {

  private TestRequest() {}

  /**
   * Sends it; returns normally when it succeeded.
   *
   * @param url where requests go, for the message (no credentials)
   * @throws CliException with exit code {@link Infermark#FAILED} when it failed
   */
  static void send(Benchmark b, String url) {
    // No monitor: nothing reports this request's client health, and starting one (a thread, JMX) would only delay
    // the first request.
    RunResult test = b.load(LoadProfile.concurrency(1).requests(1)).clientMonitoring(ClientMonitoring.OFF).run();
    Optional<RequestRecord> failed = test.records().stream().filter(r -> !r.succeeded()).findFirst();
    if (failed.isPresent()) {
      throw new CliException(Infermark.FAILED, message(url, failed.get().failure()));
    }
  }

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
