package io.infermark.metrics;

import io.infermark.core.capture.ErrorCategory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the server did that a reader of a run's numbers must be told, one sentence each: replies that came back
 * without a token ({@link ErrorCategory#EMPTY_RESPONSE}, failures here while vLLM's client counts them as
 * successes) and outputs that stopped well short of the length asked with {@code ignore_eos}
 * ({@link ShortOutputs}). Every report prints them where it prints warnings; the CLI prints them in its summary.
 */
public final class ServerNotices {

  private ServerNotices() {}

  /** The notices of a summary, in a fixed order; empty when there is nothing to say. */
  public static List<String> of(RunSummary s) {
    List<String> notices = new ArrayList<>(2);
    int empty = s.failuresByCategory().getOrDefault(ErrorCategory.EMPTY_RESPONSE, 0);
    if (empty > 0) {
      notices.add(String.format(Locale.ROOT, "%d of %d requests came back empty (a successful reply without a single "
          + "token): counted as EMPTY_RESPONSE failures, with no TTFT, TPOT or E2E; vLLM's client would count them "
          + "as successful", empty, s.requests().measured()));
    }
    ShortOutputs shortOutputs = s.tokens().shortOutputs();
    if (shortOutputs.any()) {
      notices.add(shortOutputs.warning());
    }
    return List.copyOf(notices);
  }
}
