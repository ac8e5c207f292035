package io.infermark.core.capture;

import io.infermark.core.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The standard {@link StreamObserver}: records everything reported about one request and turns it
 * into a {@link RequestRecord} when the request ends.
 *
 * <p>The engine creates one per scheduled request. Host code that wraps its own client can use one
 * directly:
 *
 * <pre>{@code
 * TokenTimeline t = TokenTimeline.start(clock);
 * // ... for every chunk your client receives:
 * t.onChunk(clock.nanoTime(), ChunkKind.CONTENT, 1);
 * t.onComplete(clock.nanoTime());
 * RequestRecord r = t.record().orElseThrow();
 * }</pre>
 *
 * <p>A request that completes without a single token-bearing chunk ends as an
 * {@link ErrorCategory#EMPTY_RESPONSE} failure: it has no first token to time and generated nothing.
 *
 * <p>The first terminal event wins; later ones, and anything reported after it, are ignored. That
 * is what lets the engine fail a request on its deadline while a target is still reading it,
 * without ever producing two records.
 */
public final class TokenTimeline implements StreamObserver {

  private final Clock clock;
  private final long originAbsNanos;
  private long sendAbsNanos;
  private boolean sendReported;
  private final boolean captureText;
  private final Consumer<RequestRecord> onDone;
  private final RequestRecord.Builder record;
  private final ChunkTimeline.Builder chunks = ChunkTimeline.builder();
  /** Absolute clock readings of the milestones by phase, {@link Long#MIN_VALUE} when absent. */
  private final long[] phaseTimes = absentTimes();
  private Usage usage = Usage.NONE;
  private Map<String, Double> serverTimings;
  private final Map<String, String> promptTags;
  private Map<String, String> annotations;
  private StringBuilder text;
  private int httpStatus;
  private String finishReason = "";
  private long lastChunkAbs;
  private int retries;
  private int redirects;
  private String finalUrl = "";
  private String retryAfter = "";
  private RequestRecord result;

  private TokenTimeline(Builder b) {
    this.clock = b.clock;
    this.sendAbsNanos = b.sendNanos;
    this.originAbsNanos = b.originNanos;
    this.captureText = b.captureText;
    this.onDone = b.onDone;
    this.lastChunkAbs = b.sendNanos;
    this.promptTags = b.tags;
    this.record = RequestRecord.builder().index(b.index).requestId(b.requestId).tags(b.tags).warmup(b.warmup)
        .cooldown(b.cooldown).intendedNanos(b.intendedNanos - b.originNanos);
  }

  private static long[] absentTimes() {
    long[] a = new long[Phase.values().length];
    java.util.Arrays.fill(a, Long.MIN_VALUE);
    return a;
  }

  /** A timeline for a request being sent now: origin, intended and actual send are this instant. */
  public static TokenTimeline start(Clock clock) {
    long now = clock.nanoTime();
    return builder(clock).originNanos(now).intendedNanos(now).sendNanos(now).build();
  }

  /** A builder; intended and send times default to the clock's reading at {@link Builder#build()}. */
  public static Builder builder(Clock clock) {
    return new Builder(clock);
  }

  /** The clock this timeline reads when it must stamp an event itself. */
  public Clock clock() {
    return clock;
  }

  /**
   * Moves the send time to when the request actually left the client. Taken once, and only before
   * the response began (a late or repeated report is ignored); the send time never moves before
   * time the timeline was built with, so client time before it stays schedule lag.
   */
  @Override
  public synchronized void onSend(long nanoTime) {
    if (result == null && !sendReported && httpStatus == 0 && chunks.size() == 0) {
      sendReported = true;
      sendAbsNanos = Math.max(sendAbsNanos, nanoTime);
      lastChunkAbs = sendAbsNanos;
    }
  }

  @Override
  public synchronized void onPhase(Phase phase, long nanoTime) {
    if (result == null && phaseTimes[phase.ordinal()] == Long.MIN_VALUE) {
      phaseTimes[phase.ordinal()] = nanoTime;
    }
  }

  @Override
  public synchronized void onResponseHeaders(int status, long nanoTime) {
    if (result == null) {
      httpStatus = status;
      if (phaseTimes[Phase.RESPONSE_HEADERS_END.ordinal()] == Long.MIN_VALUE) {
        phaseTimes[Phase.RESPONSE_HEADERS_END.ordinal()] = nanoTime;
      }
    }
  }

  @Override
  public synchronized void onChunk(long nanoTime, ChunkKind kind, int tokens) {
    if (result != null) {
      return;
    }
    // A clock read on another thread may be a hair behind the previous chunk; never go backwards.
    long abs = Math.max(nanoTime, lastChunkAbs);
    lastChunkAbs = abs;
    chunks.add(abs - sendAbsNanos, kind, tokens);
  }

  @Override
  public synchronized void onText(ChunkKind kind, CharSequence fragment) {
    if (result == null && captureText && kind == ChunkKind.CONTENT) {
      if (text == null) {
        text = new StringBuilder();
      }
      text.append(fragment);
    }
  }

  @Override
  public boolean wantsText() {
    return captureText;
  }

  @Override
  public synchronized void onUsage(Usage reported) {
    if (result == null) {
      usage = usage.merge(reported);
    }
  }

  @Override
  public synchronized void onFinishReason(String reason) {
    if (result == null && !reason.isEmpty()) {
      finishReason = reason;
    }
  }

  @Override
  public synchronized void onServerTiming(String name, double value) {
    if (result == null) {
      if (serverTimings == null) {
        serverTimings = new HashMap<>();
      }
      serverTimings.put(name, value);
    }
  }

  /** At most this many annotations are kept, each value cut at {@link #MAX_ANNOTATION_CHARS}: buffers stay bounded. */
  static final int MAX_ANNOTATIONS = 32;
  static final int MAX_ANNOTATION_CHARS = 8192;

  @Override
  public synchronized void onAnnotation(String name, String value) {
    if (result != null || name == null || value == null) {
      return;
    }
    if (annotations == null) {
      annotations = new java.util.LinkedHashMap<>();
    }
    if (annotations.size() < MAX_ANNOTATIONS || annotations.containsKey(name)) {
      annotations.put(name, value.length() > MAX_ANNOTATION_CHARS ? value.substring(0, MAX_ANNOTATION_CHARS) : value);
    }
  }

  @Override
  public synchronized void onRetry(String reason) {
    if (result == null) {
      retries++;
    }
  }

  @Override
  public synchronized void onRetryAfter(String rawValue) {
    if (result == null && rawValue != null) {
      retryAfter = rawValue;
    }
  }

  @Override
  public synchronized void onRedirect(int status, String url) {
    if (result == null) {
      redirects++;
      finalUrl = url;
    }
  }

  @Override
  public void onComplete(long nanoTime) {
    finish(nanoTime, null);
  }

  @Override
  public void onFailure(Failure failure, long nanoTime) {
    finish(nanoTime, Objects.requireNonNull(failure, "failure"));
  }

  /** True once the request has ended. */
  public synchronized boolean isDone() {
    return result != null;
  }

  /** The record, once the request has ended. */
  public synchronized Optional<RequestRecord> record() {
    return Optional.ofNullable(result);
  }

  private void finish(long nanoTime, Failure failure) {
    RequestRecord done;
    synchronized (this) {
      if (result != null) {
        return;
      }
      ChunkTimeline received = chunks.build();
      Failure f = failure != null ? failure : received.tokenChunkCount() == 0 ? empty(received) : null;
      if (f != null && f.httpStatus() == 0 && httpStatus != 0) {
        f = f.withHttpStatus(httpStatus);
      }
      long end = Math.max(Math.max(nanoTime, lastChunkAbs) - sendAbsNanos, 0);
      long[] phaseOffsets = ConnectionPhases.absentArray();
      for (int i = 0; i < phaseTimes.length; i++) {
        if (phaseTimes[i] != Long.MIN_VALUE) {
          phaseOffsets[i] = Math.max(0, phaseTimes[i] - sendAbsNanos);
        }
      }
      if (annotations != null) {
        Map<String, String> tags = new java.util.LinkedHashMap<>(promptTags);
        tags.putAll(annotations);
        record.tags(tags);
      }
      result = record.sendNanos(sendAbsNanos - originAbsNanos).phases(ConnectionPhases.of(phaseOffsets)).httpStatus(httpStatus).chunks(received)
          .usage(usage).finishReason(finishReason).endOffsetNanos(end).failure(Optional.ofNullable(f))
          .serverTimings(serverTimings == null ? Map.of() : serverTimings)
          .text(captureText ? Optional.of(text == null ? "" : text.toString()) : Optional.empty())
          .retries(retries).redirects(redirects).finalUrl(finalUrl).retryAfter(retryAfter)
          .build();
      done = result;
    }
    onDone.accept(done);
  }

  /** A reply that ended well but carried no token: {@link ErrorCategory#EMPTY_RESPONSE}, saying what did come. */
  private Failure empty(ChunkTimeline received) {
    StringBuilder m = new StringBuilder("the reply ended without a single token (")
        .append(received.size()).append(received.size() == 1 ? " chunk" : " chunks");
    if (!finishReason.isEmpty()) {
      m.append(", finish reason ").append(finishReason);
    }
    usage.completionTokens().ifPresent(n -> m.append(", usage says ").append(n).append(" completion tokens"));
    return Failure.of(ErrorCategory.EMPTY_RESPONSE, m.append(')').toString());
  }

  @Override
  public synchronized String toString() {
    return result != null ? "TokenTimeline[done: " + result + "]"
        : "TokenTimeline[in flight, " + chunks.size() + " chunks]";
  }

  /** Configures a {@link TokenTimeline}. */
  public static final class Builder {
    private final Clock clock;
    private long index;
    private String requestId = "";
    private Map<String, String> tags = Map.of();
    private boolean warmup;
    private boolean cooldown;
    private Long originNanos;
    private Long intendedNanos;
    private Long sendNanos;
    private boolean captureText;
    private Consumer<RequestRecord> onDone = r -> {};

    private Builder(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Position in the run's schedule. */
    public Builder index(long index) {
      this.index = index;
      return this;
    }

    /** The id sent to the server. */
    public Builder requestId(String id) {
      this.requestId = Objects.requireNonNull(id, "requestId");
      return this;
    }

    /** Prompt tags copied onto the record. */
    public Builder tags(Map<String, String> tags) {
      this.tags = Objects.requireNonNull(tags, "tags");
      return this;
    }

    /** Marks the request as warmup. */
    public Builder warmup(boolean warmup) {
      this.warmup = warmup;
      return this;
    }

    /** Marks the request as cooldown. */
    public Builder cooldown(boolean cooldown) {
      this.cooldown = cooldown;
      return this;
    }

    /** The run's origin, a clock reading; record times before the send are relative to it. */
    public Builder originNanos(long nanos) {
      this.originNanos = nanos;
      return this;
    }

    /** When the schedule meant to send the request, a clock reading. */
    public Builder intendedNanos(long nanos) {
      this.intendedNanos = nanos;
      return this;
    }

    /** When the request was handed to the target, a clock reading. */
    public Builder sendNanos(long nanos) {
      this.sendNanos = nanos;
      return this;
    }

    /** Keep the generated content text on the record. */
    public Builder captureText(boolean capture) {
      this.captureText = capture;
      return this;
    }

    /** Called once, on the thread that ended the request, with its record. */
    public Builder onDone(Consumer<RequestRecord> listener) {
      this.onDone = Objects.requireNonNull(listener, "onDone");
      return this;
    }

    /** Returns the timeline. */
    public TokenTimeline build() {
      long now = clock.nanoTime();
      if (sendNanos == null) {
        sendNanos = now;
      }
      if (intendedNanos == null) {
        intendedNanos = sendNanos;
      }
      if (originNanos == null) {
        originNanos = Math.min(intendedNanos, sendNanos);
      }
      return new TokenTimeline(this);
    }
  }
}
