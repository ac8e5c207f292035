package io.infermark.testkit.simulator;

/**
 * The durations a protocol's server reports about one request, taken from the engine's ground-truth
 * {@link SequenceTimeline} when the response's last bytes are rendered (all its tokens are ready
 * then). Nanoseconds, in the engine's clock; each is 0 when the timeline lacks the times it spans.
 *
 * <ul>
 *   <li>load: the wait for the model's weights ({@link SequenceTimeline#loadDurationNanos()});
 *   <li>prompt eval: the first prefill, from its start to its end (the first token);
 *   <li>eval: from the first token to the last;
 *   <li>total: from the request's arrival (before any load) to its last token;
 *   <li>queue: from arrival to first admission (the load included);
 *   <li>inference: from first admission to the last token.
 * </ul>
 */
record ReportedTimings(long loadNanos, long promptEvalNanos, long evalNanos, long totalNanos, long queueNanos,
    long inferenceNanos, int promptTokensComputed, int tokens) {

  /** What a server reports when it has no timeline (a dry run before any token). */
  static final ReportedTimings NONE = new ReportedTimings(0, 0, 0, 0, 0, 0, 0, 0);

  static ReportedTimings of(SequenceTimeline t) {
    if (t == null) {
      return NONE;
    }
    int n = t.tokenCount();
    long prompt = t.prefillStartNanos().isPresent() && t.prefillEndNanos().isPresent()
        ? t.prefillEndNanos().getAsLong() - t.prefillStartNanos().getAsLong() : 0;
    long eval = n > 0 ? t.tokenNanos(n - 1) - t.tokenNanos(0) : 0;
    long total = n > 0 ? t.tokenNanos(n - 1) - t.arrivalNanos() : 0;
    long queue = t.queueNanos().orElse(0);
    long inference = n > 0 && t.admissionNanos().isPresent() ? t.tokenNanos(n - 1) - t.admissionNanos().getAsLong()
        : 0;
    return new ReportedTimings(t.loadDurationNanos(), Math.max(prompt, 0), Math.max(eval, 0), Math.max(total, 0),
        Math.max(queue, 0), Math.max(inference, 0), Math.max(t.promptTokens() - t.cachedPromptTokens(), 0), n);
  }

  /** {@code nanos} in milliseconds, as llama.cpp's {@code timings} report them. */
  static double millis(long nanos) {
    return nanos / 1e6;
  }

  /** TGI's {@code x-compute-time}: seconds, as Rust prints an f64. */
  String computeTimeSeconds() {
    return new java.math.BigDecimal(Double.toString(totalNanos / 1e9)).toPlainString();
  }
}
