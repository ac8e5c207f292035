package io.infermark.core.run;

import io.infermark.core.PreflightFailedException;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenTimeline;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One test request before a run, as vLLM's benchmark sends: a wrong model, refused credentials or
 * an unreachable host then fail the run at once with the server's own message, instead of
 * producing as many identical failed records as the run has requests. Only those definite
 * misconfigurations abort; any other outcome (a 429, a 5xx, a timeout, an error inside the
 * stream) is logged and the run goes ahead, since it may be what the run is meant to measure.
 */
public final class Preflight {

  private static final Logger log = LoggerFactory.getLogger(Preflight.class);

  /** The id the pre-flight request is sent with, so server logs can tell it from the run's. */
  static final String REQUEST_ID = "infermark-preflight";

  private Preflight() {}

  /**
   * Sends the test request: the run's parameters (headers and extra body included, so its
   * authentication is exercised) with one output token, and a short prompt.
   *
   * @throws PreflightFailedException on 401, 403, 404 or a failure to connect
   */
  public static void check(Target target, GenerationParams params) {
    InferenceRequest request = new InferenceRequest(REQUEST_ID, Prompt.user("Say hi."),
        params.toBuilder().maxTokens(1).build());
    TokenTimeline timeline = TokenTimeline.start(Clock.system());
    target.execute(request, timeline, new Cancellation());
    Optional<Failure> failure = timeline.record().flatMap(RequestRecord::failure);
    if (failure.isEmpty()) {
      return;
    }
    Failure f = failure.get();
    if (aborts(f)) {
      throw new PreflightFailedException(target.toString(), f, hint(f));
    }
    log.warn("pre-flight request to {} failed ({}); the run goes ahead", target, f);
  }

  /** What to check, for the failures whose cause is known. */
  static String hint(Failure f) {
    if (f.category() == ErrorCategory.HTTP_STATUS && f.httpStatus() == 404) {
      return "the server does not serve that path or model: the URL is sent as built (OpenAiTarget.chat adds /v1 to "
          + "a base URL without a path; OpenAiTarget.at posts to an endpoint URL exactly as given, e.g. a server "
          + "mounted at its root)";
    }
    return "";
  }

  /** 401, 403 and 404 answers and failures to connect are misconfigurations no run can measure past. */
  static boolean aborts(Failure f) {
    if (f.category() == ErrorCategory.CONNECT) {
      return true;
    }
    int status = f.httpStatus();
    return f.category() == ErrorCategory.HTTP_STATUS && (status == 401 || status == 403 || status == 404);
  }
}
