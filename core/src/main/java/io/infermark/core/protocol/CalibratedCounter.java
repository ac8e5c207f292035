package io.infermark.core.protocol;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenTimeline;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.workload.SyntheticText;
import java.util.Locale;
import java.util.Objects;

/**
 * A {@link TokenCounter} calibrated against what a server reports: two probe requests of different
 * lengths go through a {@link Target} with {@code max_tokens = 1}, and the server's
 * {@code usage.prompt_tokens} for each is fitted as {@code server = ratio × base + overhead}. Then
 * {@code count(text) = round(ratio × base.count(text))}: the server's count of the text itself,
 * without the fixed {@link #overheadTokens() overhead} (chat template, BOS) that the server adds
 * once per request.
 *
 * <pre>{@code
 * CalibratedCounter server = CalibratedCounter.probe(target, TokenCounter.estimate());
 * Prompt p = ExactLength.prompt(server, 512, 1);   // ≈ 512 server tokens of text
 * }</pre>
 *
 * <p>Two probes cancel the overhead exactly when the base counter is proportional to the server's
 * tokenizer on the probe text (synthetic common words, for which both are close to one token per
 * word). Other text may deviate by the base counter's own error.
 */
public final class CalibratedCounter implements TokenCounter {

  /** Base-counter lengths of the two probes. */
  static final int SHORT_PROBE = 64;
  static final int LONG_PROBE = 512;

  private final TokenCounter base;
  private final double ratio;
  private final int overhead;

  private CalibratedCounter(TokenCounter base, double ratio, int overhead) {
    this.base = base;
    this.ratio = ratio;
    this.overhead = overhead;
  }

  /**
   * A counter with a known ratio and overhead (from an earlier calibration).
   *
   * @throws IllegalArgumentException if the ratio is not finite and > 0 or the overhead is negative
   */
  public static CalibratedCounter of(TokenCounter base, double ratio, int overheadTokens) {
    Objects.requireNonNull(base, "base");
    if (!(ratio > 0) || Double.isInfinite(ratio)) {
      throw new IllegalArgumentException("ratio must be finite and > 0, was " + ratio);
    }
    if (overheadTokens < 0) {
      throw new IllegalArgumentException("overheadTokens must be >= 0, was " + overheadTokens);
    }
    return new CalibratedCounter(base, ratio, overheadTokens);
  }

  /**
   * Calibrates {@code base} against the server behind {@code target} with two probe requests
   * (blocking; each with {@code max_tokens = 1}).
   *
   * @throws IllegalStateException if a probe fails or the server reports no prompt tokens
   */
  public static CalibratedCounter probe(Target target, TokenCounter base) {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(base, "base");
    String shortText = SyntheticText.exactly(base, SHORT_PROBE, 0x5EED);
    String longText = SyntheticText.exactly(base, LONG_PROBE, 0x5EED);
    int e1 = base.count(shortText);
    int e2 = base.count(longText);
    int s1 = serverPromptTokens(target, shortText, "short");
    int s2 = serverPromptTokens(target, longText, "long");
    double ratio = (double) (s2 - s1) / (e2 - e1);
    if (!(ratio > 0)) {
      throw new IllegalStateException("the server counted the longer probe (" + s2 + " tokens) no longer than the "
          + "shorter (" + s1 + "): cannot calibrate");
    }
    int overhead = (int) Math.max(0, Math.round(s1 - ratio * e1));
    return new CalibratedCounter(base, ratio, overhead);
  }

  private static int serverPromptTokens(Target target, String text, String which) {
    TokenTimeline timeline = TokenTimeline.start(Clock.system());
    InferenceRequest request = new InferenceRequest("im-calibrate-" + which, Prompt.user(text),
        GenerationParams.builder().maxTokens(1).build());
    try {
      target.execute(request, timeline, new Cancellation());
    } catch (RuntimeException e) {
      throw new IllegalStateException("the " + which + " calibration probe failed: " + e, e);
    }
    RequestRecord r = timeline.record().orElseThrow(() ->
        new IllegalStateException("the target returned without finishing the " + which + " calibration probe"));
    // Only the prompt's count is wanted: a reply without a token (max_tokens 1, an EOS first) still reports it.
    if (!r.succeeded() && r.failure().orElseThrow().category() != ErrorCategory.EMPTY_RESPONSE) {
      throw new IllegalStateException("the " + which + " calibration probe failed: " + r.failure().orElseThrow());
    }
    return r.usage().promptTokens().orElseThrow(() -> new IllegalStateException("the server reported no prompt "
        + "tokens for the " + which + " calibration probe; ask for usage (stream_options.include_usage)"));
  }

  /** Server tokens per base-counter token. */
  public double ratio() {
    return ratio;
  }

  /** Tokens the server adds once per request (template, BOS), not included in {@link #count}. */
  public int overheadTokens() {
    return overhead;
  }

  @Override
  public int count(String text) {
    return (int) Math.round(ratio * base.count(text));
  }

  @Override
  public String name() {
    return String.format(Locale.ROOT, "calibrated(%s x %.4f, +%d per request)", base.name(), ratio, overhead);
  }

  @Override
  public String toString() {
    return "TokenCounter[" + name() + "]";
  }
}
