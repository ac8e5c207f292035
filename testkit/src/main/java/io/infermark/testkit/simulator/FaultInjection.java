package io.infermark.testkit.simulator;

import io.infermark.testkit.simulator.ServerTimeline.Outcome;
import java.io.IOException;
import java.util.Arrays;

/**
 * The fault one request drew from the {@link FaultPolicy}, and everything it does to that request:
 * rejecting it on arrival (429, 503, 500), delaying its headers, stretching its token times, and
 * cutting its response short (dropping the connection, stalling, a malformed chunk, an error inside
 * the stream or in place of the body). {@link GenerationHandler} asks it at each point where a fault
 * may act; a request without a fault gets {@link #none()}, which never acts.
 *
 * <p>Not thread safe: used by the one thread serving its request.
 */
final class FaultInjection {

  /** What a fault does to the request it hits, done by the request's handler. */
  interface Request {

    /** Sets a response header. */
    void responseHeader(String name, String value);

    /** Answers with {@code error} instead of a response and ends the request with {@code outcome}. */
    void sendError(ApiError error, Outcome outcome) throws IOException;

    /** Ends the request as disconnected and makes the server close its connection; always throws. */
    void dropConnection() throws IOException;

    /** Writes the last event of a stream the fault cuts short and ends the request with {@code outcome}. */
    void finishWith(Outcome outcome, byte[] event) throws IOException;

    /** The renderer of the request's protocol. */
    ResponseRenderer renderer();

    /** Output tokens written so far. */
    int tokensWritten();
  }

  private static final FaultInjection NONE = new FaultInjection(null, null, 0, 0);

  private final Fault fault; // null: none
  private final FaultPolicy policy;
  private final long sequence;
  private final long arrivalNanos;
  private boolean struck; // whether a mid-stream fault has acted

  private FaultInjection(Fault fault, FaultPolicy policy, long sequence, long arrivalNanos) {
    this.fault = fault;
    this.policy = policy;
    this.sequence = sequence;
    this.arrivalNanos = arrivalNanos;
  }

  /** No fault: every check is false and every delay is none. */
  static FaultInjection none() {
    return NONE;
  }

  /**
   * The fault {@code policy} draws for the request {@code recorder} records (or {@link #none()}),
   * recorded in its timeline and counted in {@code metrics}.
   */
  static FaultInjection decide(FaultPolicy policy, TimelineRecorder recorder, ServerMetrics metrics) {
    Fault fault = policy.decide(recorder.sequence()).orElse(null);
    if (fault == null) {
      return NONE;
    }
    recorder.fault(fault);
    metrics.fault(fault.kind());
    return new FaultInjection(fault, policy, recorder.sequence(), recorder.arrivalNanos());
  }

  /** Whether the request has no fault. */
  boolean isNone() {
    return fault == null;
  }

  private boolean is(Fault.Kind kind) {
    return fault != null && fault.kind() == kind;
  }

  /** Answers the faults that fail a request on arrival; true if one did. */
  boolean rejectedOnArrival(Request request) throws IOException {
    if (fault == null) {
      return false;
    }
    switch (fault.kind()) {
      case RATE_LIMITED -> {
        request.responseHeader("Retry-After", retryAfterSeconds());
        request.sendError(ApiError.rateLimited("Injected rate limit: the simulator rejects this request on purpose; "
            + "retry after " + retryAfterSeconds() + " s"), Outcome.REJECTED);
        return true;
      }
      case UNAVAILABLE -> {
        request.responseHeader("Retry-After", retryAfterSeconds());
        request.sendError(ApiError.unavailable("Injected unavailability: the simulator is 'overloaded' on purpose; "
            + "retry after " + retryAfterSeconds() + " s"), Outcome.REJECTED);
        return true;
      }
      case SERVER_ERROR -> {
        request.sendError(ApiError.internal("Injected server error: the simulator fails this request on purpose"),
            Outcome.SERVER_ERROR);
        return true;
      }
      default -> {
        return false;
      }
    }
  }

  private String retryAfterSeconds() {
    long nanos = fault.duration().toNanos();
    return Long.toString((nanos + 999_999_999L) / 1_000_000_000L);
  }

  /** Whether the fault drops the connection (so a stream announces a length it never delivers). */
  boolean drops() {
    return is(Fault.Kind.DISCONNECT);
  }

  /** Under {@code SLOW_HEADERS}, waits until the fault's duration after arrival. */
  void delayHeaders() throws InterruptedException {
    if (is(Fault.Kind.SLOW_HEADERS)) {
      RealTimeServingModel.parkUntil(arrivalNanos + fault.duration().toNanos());
    }
  }

  /** Under a slowdown, waits until the stretched time of something ready at {@code ready}. */
  void slowDown(long ready) throws InterruptedException {
    if (is(Fault.Kind.SLOWDOWN)) {
      long jitter = policy.jitterNanos(sequence, fault.duration().toNanos());
      RealTimeServingModel.parkUntil(arrivalNanos + fault.slowedNanos(ready - arrivalNanos, jitter));
    }
  }

  /**
   * Acts on a stream, once, before the event about to be written if the fault is a mid-stream one
   * and its token count is reached (or the event is the trailer): drops the connection (throws),
   * stalls, or writes a malformed chunk or a stream error in place of the rest.
   *
   * @return true if the stream is finished (the caller writes nothing more)
   */
  boolean strikeStream(Request request, boolean trailer) throws IOException, InterruptedException {
    boolean midStream = is(Fault.Kind.DISCONNECT) || is(Fault.Kind.STALL) || is(Fault.Kind.MALFORMED_CHUNK)
        || is(Fault.Kind.STREAM_ERROR);
    if (!midStream || struck || (request.tokensWritten() < fault.afterTokens() && !trailer)) {
      return false;
    }
    struck = true;
    switch (fault.kind()) {
      case DISCONNECT -> request.dropConnection();
      case STALL -> RealTimeServingModel.parkUntil(System.nanoTime() + fault.duration().toNanos());
      case MALFORMED_CHUNK -> {
        request.finishWith(Outcome.MALFORMED_CHUNK, request.renderer().malformedEvent());
        return true;
      }
      case STREAM_ERROR -> {
        request.finishWith(Outcome.STREAM_ERROR, request.renderer().streamError("Injected generation error: the "
            + "simulator fails this stream on purpose after " + request.tokensWritten() + " tokens"));
        return true;
      }
      default -> throw new IllegalStateException("not a mid-stream fault: " + fault);
    }
    return false;
  }

  /**
   * The output tokens a non-streamed response waits for before the fault drops its connection
   * (before any response byte), or -1 if the fault does not drop it.
   */
  int dropAfterTokens(int outputTokens) {
    return is(Fault.Kind.DISCONNECT) ? Math.min(fault.afterTokens(), outputTokens) : -1;
  }

  /**
   * Acts on a non-streamed response whose tokens are all ready: stalls, or answers with an error in
   * place of the body.
   *
   * @return true if the request is answered (the caller writes nothing more)
   */
  boolean strikeResponse(Request request) throws IOException, InterruptedException {
    if (is(Fault.Kind.STALL)) {
      RealTimeServingModel.parkUntil(System.nanoTime() + fault.duration().toNanos());
    }
    if (is(Fault.Kind.STREAM_ERROR)) {
      request.sendError(ApiError.internal("Injected generation error: the simulator fails this request on purpose"),
          Outcome.STREAM_ERROR);
      return true;
    }
    return false;
  }

  /** Whether the fault cuts a non-streamed body in half ({@link #cut(byte[])}). */
  boolean malformsBody() {
    return is(Fault.Kind.MALFORMED_CHUNK);
  }

  /** The first half of {@code body}, as a malformed response sends it. */
  static byte[] cut(byte[] body) {
    return Arrays.copyOf(body, body.length / 2);
  }

  @Override
  public String toString() {
    return fault == null ? "FaultInjection[none]" : "FaultInjection[" + fault + " on #" + sequence + "]";
  }
}
