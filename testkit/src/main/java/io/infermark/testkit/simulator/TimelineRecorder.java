package io.infermark.testkit.simulator;

import java.util.Arrays;

/**
 * Collects one request's times while it is served, on the single thread that serves it, and
 * freezes them into a {@link ServerTimeline} when the request ends.
 */
final class TimelineRecorder {

  private final String requestId;
  private final long sequence;
  private final String endpoint;
  private final long arrivalNanos;
  private boolean streaming;
  private int promptTokens = -1;
  private long admissionNanos = ServerTimeline.NO_TIME;
  private long[] tokenNanos = new long[16];
  private int tokens;
  private int status;
  private Fault fault;
  private SequenceTimeline engine;

  TimelineRecorder(String requestId, long sequence, String endpoint, long arrivalNanos) {
    this.requestId = requestId;
    this.sequence = sequence;
    this.endpoint = endpoint;
    this.arrivalNanos = arrivalNanos;
  }

  String requestId() {
    return requestId;
  }

  long sequence() {
    return sequence;
  }

  long arrivalNanos() {
    return arrivalNanos;
  }

  void request(boolean streaming, int promptTokens) {
    this.streaming = streaming;
    this.promptTokens = promptTokens;
  }

  void status(int status) {
    this.status = status;
  }

  void fault(Fault fault) {
    this.fault = fault;
  }

  void engine(SequenceTimeline engine) {
    this.engine = engine;
  }

  void admitted(long nanos) {
    this.admissionNanos = nanos;
  }

  /** Records that {@code count} more tokens started to be written at {@code nanos}. */
  void tokensWritten(int count, long nanos) {
    if (tokens + count > tokenNanos.length) {
      tokenNanos = Arrays.copyOf(tokenNanos, Math.max(tokenNanos.length * 2, tokens + count));
    }
    Arrays.fill(tokenNanos, tokens, tokens + count, nanos);
    tokens += count;
  }

  int tokensWritten() {
    return tokens;
  }

  ServerTimeline finish(ServerTimeline.Outcome outcome, long finishNanos) {
    return new ServerTimeline(requestId, sequence, endpoint, streaming, promptTokens, arrivalNanos,
        admissionNanos, Arrays.copyOf(tokenNanos, tokens), finishNanos, outcome, status, fault, engine);
  }
}
