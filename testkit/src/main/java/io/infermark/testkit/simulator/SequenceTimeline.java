package io.infermark.testkit.simulator;

import java.util.Locale;
import java.util.OptionalLong;

/**
 * What the engine did with one request: when it arrived, was first admitted, started and finished
 * its prefill, produced each output token, finished, and when it was preempted. Times are in the
 * engine's clock: virtual nanoseconds for a {@link VirtualEngine}, {@link System#nanoTime()} for a
 * running simulator (where a token's time here is when its step ended, and
 * {@link ServerTimeline#tokenNanos(int)} when its bytes were written).
 */
public final class SequenceTimeline {

  private final String id;
  private final long arrivalNanos;
  private final int promptTokens;
  private final int outputTokens;
  private final long admissionOrNoTime;
  private final long prefillStartOrNoTime;
  private final long prefillEndOrNoTime;
  private final long[] tokenNanos;
  private final long finishOrNoTime;
  private final long[] preemptionNanos;
  private final int cachedPromptTokens;
  private final long loadNanos;

  SequenceTimeline(String id, long arrivalNanos, int promptTokens, int outputTokens, long admissionOrNoTime,
      long prefillStartOrNoTime, long prefillEndOrNoTime, long[] tokenNanos, long finishOrNoTime,
      long[] preemptionNanos, int cachedPromptTokens) {
    this(id, arrivalNanos, promptTokens, outputTokens, admissionOrNoTime, prefillStartOrNoTime, prefillEndOrNoTime,
        tokenNanos, finishOrNoTime, preemptionNanos, cachedPromptTokens, 0);
  }

  private SequenceTimeline(String id, long arrivalNanos, int promptTokens, int outputTokens, long admissionOrNoTime,
      long prefillStartOrNoTime, long prefillEndOrNoTime, long[] tokenNanos, long finishOrNoTime,
      long[] preemptionNanos, int cachedPromptTokens, long loadNanos) {
    this.loadNanos = loadNanos;
    this.id = id;
    this.arrivalNanos = arrivalNanos;
    this.promptTokens = promptTokens;
    this.outputTokens = outputTokens;
    this.admissionOrNoTime = admissionOrNoTime;
    this.prefillStartOrNoTime = prefillStartOrNoTime;
    this.prefillEndOrNoTime = prefillEndOrNoTime;
    this.tokenNanos = tokenNanos;
    this.finishOrNoTime = finishOrNoTime;
    this.preemptionNanos = preemptionNanos;
    this.cachedPromptTokens = cachedPromptTokens;
  }

  /**
   * This timeline of a request that arrived at {@code arrivalNanos} and waited {@code loadNanos} for
   * the model to load before it reached the engine (whose timeline this is): the arrival moves back,
   * so TTFT and queueing include the wait.
   */
  SequenceTimeline withLoad(long arrivalNanos, long loadNanos) {
    return new SequenceTimeline(id, arrivalNanos, promptTokens, outputTokens, admissionOrNoTime,
        prefillStartOrNoTime, prefillEndOrNoTime, tokenNanos, finishOrNoTime, preemptionNanos, cachedPromptTokens,
        loadNanos);
  }

  /**
   * How long the request waited for the model's weights to load before the engine saw it, in
   * nanoseconds (Ollama's {@code load_duration}); 0 when the model was loaded. Included in
   * {@link #queueNanos()} and {@link #timeToFirstTokenNanos()}.
   */
  public long loadDurationNanos() {
    return loadNanos;
  }

  /** The request's id. */
  public String id() {
    return id;
  }

  /** When the request reached the engine. */
  public long arrivalNanos() {
    return arrivalNanos;
  }

  /** Prompt length in tokens. */
  public int promptTokens() {
    return promptTokens;
  }

  /** Tokens the request was to generate. */
  public int outputTokens() {
    return outputTokens;
  }

  /** Prompt tokens found in the prefix cache at first admission: their prefill was skipped. */
  public int cachedPromptTokens() {
    return cachedPromptTokens;
  }

  /** When generated token {@code index} was ready: the end of the step that produced it. */
  public long tokenNanos(int index) {
    return tokenNanos[index];
  }

  /** Every generated token's ready time, in order (a copy). */
  public long[] tokenNanos() {
    return tokenNanos.clone();
  }

  /** When the sequence was preempted (its KV freed, to be recomputed), in order (a copy). */
  public long[] preemptionNanos() {
    return preemptionNanos.clone();
  }

  /** When the request was first admitted (scheduled with KV blocks), if it was. */
  public OptionalLong admissionNanos() {
    return optional(admissionOrNoTime);
  }

  /** When its first prefill step started (equals admission). */
  public OptionalLong prefillStartNanos() {
    return optional(prefillStartOrNoTime);
  }

  /** When its prompt was first fully computed: the end of the step that also produced token 0. */
  public OptionalLong prefillEndNanos() {
    return optional(prefillEndOrNoTime);
  }

  /** When the last token was produced and the sequence left the engine, if it finished. */
  public OptionalLong finishNanos() {
    return optional(finishOrNoTime);
  }

  /** Tokens generated. */
  public int tokenCount() {
    return tokenNanos.length;
  }

  /** Time from arrival to the first token, if one was produced. */
  public OptionalLong timeToFirstTokenNanos() {
    return tokenNanos.length == 0 ? OptionalLong.empty() : OptionalLong.of(tokenNanos[0] - arrivalNanos);
  }

  /** Time from arrival to first admission: the queueing delay. */
  public OptionalLong queueNanos() {
    return admissionOrNoTime == ServerTimeline.NO_TIME ? OptionalLong.empty()
        : OptionalLong.of(admissionOrNoTime - arrivalNanos);
  }

  /** Times the sequence was preempted. */
  public int preemptions() {
    return preemptionNanos.length;
  }

  private static OptionalLong optional(long nanos) {
    return nanos == ServerTimeline.NO_TIME ? OptionalLong.empty() : OptionalLong.of(nanos);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SequenceTimeline t && t.id.equals(id) && t.arrivalNanos == arrivalNanos
        && t.promptTokens == promptTokens && t.outputTokens == outputTokens
        && t.admissionOrNoTime == admissionOrNoTime && t.prefillStartOrNoTime == prefillStartOrNoTime
        && t.prefillEndOrNoTime == prefillEndOrNoTime && java.util.Arrays.equals(t.tokenNanos, tokenNanos)
        && t.finishOrNoTime == finishOrNoTime && java.util.Arrays.equals(t.preemptionNanos, preemptionNanos)
        && t.cachedPromptTokens == cachedPromptTokens && t.loadNanos == loadNanos;
  }

  @Override
  public int hashCode() {
    return id.hashCode() * 31 + Long.hashCode(arrivalNanos);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("SequenceTimeline{").append(id).append(", prompt=").append(promptTokens)
        .append(", tokens=").append(tokenNanos.length).append('/').append(outputTokens);
    admissionNanos().ifPresent(a -> s.append(", queued=").append(ms(a - arrivalNanos)));
    timeToFirstTokenNanos().ifPresent(t -> s.append(", ttft=").append(ms(t)));
    finishNanos().ifPresent(f -> s.append(", e2e=").append(ms(f - arrivalNanos)));
    if (loadNanos > 0) {
      s.append(", load=").append(ms(loadNanos));
    }
    if (cachedPromptTokens > 0) {
      s.append(", cached=").append(cachedPromptTokens);
    }
    if (preemptionNanos.length > 0) {
      s.append(", preempted=").append(preemptionNanos.length);
    }
    return s.append('}').toString();
  }

  private static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.3fms", nanos / 1e6);
  }
}
