package io.infermark.testkit.simulator;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The simulator's ground truth for one generation request: when it arrived, when it was
 * admitted, when each token's bytes were handed to the socket (the clock is read just before the
 * write, so no client can see a token earlier than its time here), when it finished, and how it
 * ended.
 *
 * <p>All times are {@link System#nanoTime()} readings taken in the simulator's JVM. A client
 * running in the same JVM reads the same clock, so client-measured times compare directly with
 * these (for example: client first-token time minus {@link #firstTokenNanos()} is the delivery
 * delay). {@link #engine()} adds what the serving model did: admission, prefill, preemptions. A timeline is immutable and published before the response is closed, and for a
 * completed stream before its final {@code data: [DONE]} event: once a client has read
 * {@code [DONE]}, or a response to its end, or seen it fail, its timeline is available.
 */
public final class ServerTimeline {

  /** How a request ended. */
  public enum Outcome {
    /** Every token, the finish reason, usage (if asked) and {@code [DONE]} were sent. */
    COMPLETED,
    /** Rejected with a 4xx error (malformed JSON, missing fields, unknown model, ...). */
    INVALID_REQUEST,
    /** Failed on the server: an injected HTTP 500, or (logged as an error) a simulator defect. */
    SERVER_ERROR,
    /** Connection dropped on purpose by a {@link Fault#disconnect(int) disconnect} fault. */
    DISCONNECTED,
    /** Answered 429 or 503 with {@code Retry-After} by a fault. */
    REJECTED,
    /** Ended with an invalid JSON event, by a {@link Fault#malformedChunk(int)} fault. */
    MALFORMED_CHUNK,
    /** Ended with an error object in the stream, by a {@link Fault#streamError(int)} fault. */
    STREAM_ERROR,
    /** The client went away before the response was complete. */
    CLIENT_GONE,
    /** The simulator was closed before the response was complete. */
    SIMULATOR_CLOSED
  }

  static final long NO_TIME = Long.MIN_VALUE;

  private final String requestId;
  private final long sequence;
  private final String endpoint;
  private final boolean streaming;
  private final int promptTokens;
  private final long arrivalNanos;
  private final long admissionNanos; // NO_TIME when never admitted
  private final long[] tokenNanos;
  private final long finishNanos;
  private final Outcome outcome;
  private final int status;
  private final Fault fault; // null when none
  private final SequenceTimeline engine; // null when never submitted to the serving model

  ServerTimeline(String requestId, long sequence, String endpoint, boolean streaming, int promptTokens,
      long arrivalNanos, long admissionNanos, long[] tokenNanos, long finishNanos, Outcome outcome,
      int status, Fault fault, SequenceTimeline engine) {
    this.requestId = requestId;
    this.sequence = sequence;
    this.endpoint = endpoint;
    this.streaming = streaming;
    this.promptTokens = promptTokens;
    this.arrivalNanos = arrivalNanos;
    this.admissionNanos = admissionNanos;
    this.tokenNanos = tokenNanos;
    this.finishNanos = finishNanos;
    this.outcome = outcome;
    this.status = status;
    this.fault = fault;
    this.engine = engine;
  }

  /** The request's {@code X-Request-Id}: the client's, or the one the simulator generated. */
  public String requestId() {
    return requestId;
  }

  /** The request's arrival order among all generation requests, from 0; faults key on it. */
  public long sequence() {
    return sequence;
  }

  /** The path requested: {@code /v1/chat/completions} or {@code /v1/completions}. */
  public String endpoint() {
    return endpoint;
  }

  /** Whether the request asked for a streamed response (false also when it could not be parsed). */
  public boolean streaming() {
    return streaming;
  }

  /** Prompt tokens counted by {@link PromptTokenizer}, if the request was valid. */
  public OptionalInt promptTokens() {
    return promptTokens < 0 ? OptionalInt.empty() : OptionalInt.of(promptTokens);
  }

  /** When the handler started on the request. */
  public long arrivalNanos() {
    return arrivalNanos;
  }

  /** When the request got a concurrency slot; absent if it was rejected or failed first. */
  public OptionalLong admissionNanos() {
    return admissionNanos == NO_TIME ? OptionalLong.empty() : OptionalLong.of(admissionNanos);
  }

  /** How many output tokens were written to the client. */
  public int tokenCount() {
    return tokenNanos.length;
  }

  /**
   * When token {@code index}'s bytes started to be written. Tokens sent in one chunk share
   * a time; a non-streaming response writes all of its tokens at once, with its body.
   */
  public long tokenNanos(int index) {
    return tokenNanos[index];
  }

  /** Every token's write time, in order (a copy). */
  public long[] tokenNanos() {
    return tokenNanos.clone();
  }

  /** When the first token was written, if any was. */
  public OptionalLong firstTokenNanos() {
    return tokenNanos.length == 0 ? OptionalLong.empty() : OptionalLong.of(tokenNanos[0]);
  }

  /** When the last token was written, if any was. */
  public OptionalLong lastTokenNanos() {
    return tokenNanos.length == 0 ? OptionalLong.empty() : OptionalLong.of(tokenNanos[tokenNanos.length - 1]);
  }

  /** When the simulator finished with the request (after the last byte it sent was flushed). */
  public long finishNanos() {
    return finishNanos;
  }

  /** How the request ended. */
  public Outcome outcome() {
    return outcome;
  }

  /** The HTTP status sent, if response headers were sent at all. */
  public OptionalInt status() {
    return status == 0 ? OptionalInt.empty() : OptionalInt.of(status);
  }

  /** The fault injected into this request, if any. */
  public Optional<Fault> fault() {
    return Optional.ofNullable(fault);
  }

  /**
   * What the serving model did with the request: admission, prefill, each token's ready time
   * (end of its engine step, before the write), preemptions and prefix-cache hits. Empty for
   * requests rejected before reaching the model.
   */
  public Optional<SequenceTimeline> engine() {
    return Optional.ofNullable(engine);
  }

  /** When the request's first prefill step started, if it reached the model and was admitted. */
  public OptionalLong prefillStartNanos() {
    return engine == null ? OptionalLong.empty() : engine.prefillStartNanos();
  }

  /** When the request's prompt was first fully computed (the step that also produced token 0). */
  public OptionalLong prefillEndNanos() {
    return engine == null ? OptionalLong.empty() : engine.prefillEndNanos();
  }

  /** When the request was preempted (its KV cache freed and later recomputed), in order. */
  public long[] preemptionNanos() {
    return engine == null ? new long[0] : engine.preemptionNanos();
  }

  /** The server's own TTFT: first token write time minus arrival, in nanoseconds. */
  public OptionalLong timeToFirstTokenNanos() {
    return tokenNanos.length == 0 ? OptionalLong.empty() : OptionalLong.of(tokenNanos[0] - arrivalNanos);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("ServerTimeline{").append(requestId)
        .append(" #").append(sequence).append(' ').append(endpoint)
        .append(streaming ? " stream" : "")
        .append(' ').append(outcome);
    if (status != 0) {
      s.append(' ').append(status);
    }
    s.append(", tokens=").append(tokenNanos.length);
    if (admissionNanos != NO_TIME) {
      s.append(", admitted=+").append(ms(admissionNanos - arrivalNanos));
    }
    if (tokenNanos.length > 0) {
      s.append(", first=+").append(ms(tokenNanos[0] - arrivalNanos));
    }
    if (fault != null) {
      s.append(", fault=").append(fault);
    }
    if (engine != null && engine.preemptions() > 0) {
      s.append(", preempted=").append(engine.preemptions());
    }
    return s.append(", finish=+").append(ms(finishNanos - arrivalNanos)).append('}').toString();
  }

  private static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.3fms", nanos / 1e6);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServerTimeline t && t.requestId.equals(requestId) && t.sequence == sequence
        && t.endpoint.equals(endpoint) && t.streaming == streaming && t.promptTokens == promptTokens
        && t.arrivalNanos == arrivalNanos && t.admissionNanos == admissionNanos
        && Arrays.equals(t.tokenNanos, tokenNanos) && t.finishNanos == finishNanos
        && t.outcome == outcome && t.status == status && java.util.Objects.equals(t.fault, fault)
        && java.util.Objects.equals(t.engine, engine);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(sequence) * 31 + Long.hashCode(arrivalNanos);
  }
}
