package io.infermark.core.capture;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The immutable outcome of one request: when it was meant to be sent and when it was, how the
 * connection went, when every chunk arrived, how many tokens came back and from which source, and
 * how it ended. Every scheduled request of a run ends as exactly one record, failed or not.
 *
 * <p>Times are nanoseconds of the run's {@link io.infermark.core.time.Clock}: {@link #intendedNanos()}
 * and {@link #sendNanos()} from the run's origin, everything else from this request's send. Metric
 * definitions (TTFT, ITL, TPOT, ...) live in the {@code metrics} module and are computed from these
 * facts.
 */
public final class RequestRecord {

  private final long index;
  /**
   * The request id, or, when the id is a prefix followed by this record's index ({@code im-3kx9-41}), just that
   * prefix, shared by every record of the run: a retained record then holds no id string of its own.
   */
  private final String requestIdHead;
  private final boolean requestIdEndsWithIndex;
  private final Map<String, String> tags;
  private final boolean warmup;
  private final boolean cooldown;
  private final long intendedNanos;
  private final long sendNanos;
  private final ConnectionPhases phases;
  private final int httpStatus;
  private final ChunkTimeline chunks;
  private final Usage usage;
  private final int outputTokens;
  private final TokenCountSource outputTokensSource;
  private final long streamedTokens;
  private final String finishReason;
  private final long endOffsetNanos;
  private final Failure failure;
  private final Map<String, Double> serverTimings;
  private final String text;
  private final int retries;
  private final int redirects;
  private final String finalUrl;
  private final boolean insecureTls;
  private final String retryAfter;

  private RequestRecord(Builder b) {
    this.index = b.index;
    String digits = Long.toString(b.index);
    this.requestIdEndsWithIndex = b.requestId.length() > digits.length() && b.requestId.endsWith(digits);
    this.requestIdHead = requestIdEndsWithIndex
        ? SharedPrefix.of(b.requestId.substring(0, b.requestId.length() - digits.length())) : b.requestId;
    this.tags = Map.copyOf(b.tags);
    this.warmup = b.warmup;
    this.cooldown = b.cooldown;
    this.intendedNanos = b.intendedNanos;
    this.sendNanos = b.sendNanos;
    this.phases = b.phases;
    this.httpStatus = b.httpStatus;
    this.chunks = b.chunks;
    this.usage = b.usage;
    this.finishReason = FinishReason.canonical(b.finishReason);
    this.endOffsetNanos = b.endOffsetNanos;
    this.failure = b.failure;
    this.serverTimings = Map.copyOf(b.serverTimings);
    this.text = b.text;
    this.retries = b.retries;
    this.redirects = b.redirects;
    this.finalUrl = b.finalUrl;
    this.insecureTls = b.insecureTls;
    this.retryAfter = b.retryAfter;
    long streamed = chunks.knownTokenSum();
    this.streamedTokens = streamed >= 0 ? streamed : chunks.tokenChunkCount();
    OptionalInt server = usage.completionTokens();
    if (server.isPresent()) {
      this.outputTokens = server.getAsInt();
      this.outputTokensSource = TokenCountSource.SERVER_USAGE;
    } else if (chunks.tokenChunkCount() == 0) {
      this.outputTokens = 0;
      this.outputTokensSource = TokenCountSource.NONE;
    } else if (streamed >= 0) {
      this.outputTokens = (int) streamed;
      this.outputTokensSource = TokenCountSource.CHUNK_TOKENS;
    } else {
      this.outputTokens = chunks.tokenChunkCount();
      this.outputTokensSource = TokenCountSource.CHUNK_COUNT;
    }
  }

  /** A builder; used by capture code and by readers of stored records. */
  public static Builder builder() {
    return new Builder();
  }

  /** Position of this request in the run's schedule, from 0. */
  public long index() {
    return index;
  }

  /** The id sent to the server with the request ({@code X-Request-Id}), or empty. */
  public String requestId() {
    return requestIdEndsWithIndex ? requestIdHead + index : requestIdHead;
  }

  /** Tags of the prompt (scenario, class, tenant, ...). */
  public Map<String, String> tags() {
    return tags;
  }

  /** True for warmup requests, which statistics exclude. */
  public boolean warmup() {
    return warmup;
  }

  /** True for cooldown requests (sent at the end of a run), which statistics exclude like warmup. */
  public boolean cooldown() {
    return cooldown;
  }

  /** True when the request counts for statistics: neither {@link #warmup()} nor {@link #cooldown()}. */
  public boolean measured() {
    return !warmup && !cooldown;
  }

  /** When the schedule meant to send this request, in nanoseconds from the run's origin. */
  public long intendedNanos() {
    return intendedNanos;
  }

  /** When the request was actually handed to the target, in nanoseconds from the run's origin. */
  public long sendNanos() {
    return sendNanos;
  }

  /** How late the request was sent compared with its schedule (client queue time plus scheduling lag). */
  public long scheduleLagNanos() {
    return sendNanos - intendedNanos;
  }

  /** Connection milestones. */
  public ConnectionPhases phases() {
    return phases;
  }

  /** HTTP status of the response, or 0 when none was received. */
  public int httpStatus() {
    return httpStatus;
  }

  /** Every chunk's arrival offset, kind and token count. */
  public ChunkTimeline chunks() {
    return chunks;
  }

  /** Token usage as the server reported it. */
  public Usage usage() {
    return usage;
  }

  /**
   * Output token count N: the server's usage when reported, else the client's count (see
   * {@link #outputTokensSource()}).
   */
  public int outputTokens() {
    return outputTokens;
  }

  /** Where {@link #outputTokens()} came from. */
  public TokenCountSource outputTokensSource() {
    return outputTokensSource;
  }

  /**
   * Output tokens as counted from the stream itself: the sum of per-chunk counts when the server
   * stated all of them, otherwise the number of token-bearing chunks.
   */
  public long streamedTokens() {
    return streamedTokens;
  }

  /** True when the server's usage and the stream's own count disagree. */
  public boolean tokenCountsDisagree() {
    return outputTokensSource == TokenCountSource.SERVER_USAGE && chunks.tokenChunkCount() > 0
        && streamedTokens != outputTokens;
  }

  /** Why generation stopped, if the server said. */
  public Optional<String> finishReason() {
    return finishReason.isEmpty() ? Optional.empty() : Optional.of(finishReason);
  }

  /** Nanoseconds from send until the stream closed or the request failed. */
  public long endOffsetNanos() {
    return endOffsetNanos;
  }

  /** The failure, if the request failed. */
  public Optional<Failure> failure() {
    return Optional.ofNullable(failure);
  }

  /** False only for requests the run ended before sending ({@link ErrorCategory#NOT_SENT}). */
  public boolean wasSent() {
    return failure == null || failure.category() != ErrorCategory.NOT_SENT;
  }

  /** True when the request completed without failure. */
  public boolean succeeded() {
    return failure == null;
  }

  /** Server-side timings and counters the response carried, by name. */
  public Map<String, Double> serverTimings() {
    return serverTimings;
  }

  /** The generated content text, when text capture was on. */
  public Optional<String> text() {
    return Optional.ofNullable(text);
  }

  /**
   * How many times the transport sent this request again: 1 when a pooled keep-alive connection the
   * server had closed while idle failed before any response byte and the request went out once more
   * on a new connection (its send time stays the first attempt's, so the retry's cost is in the
   * latency); 0 otherwise.
   */
  public int retries() {
    return retries;
  }

  /** How many redirects were followed to reach the response (0 unless the target follows redirects). */
  public int redirects() {
    return redirects;
  }

  /**
   * The URL the response finally came from when redirects were followed, without userinfo or query;
   * empty when the request was not redirected.
   */
  public Optional<String> finalUrl() {
    return finalUrl.isEmpty() ? Optional.empty() : Optional.of(finalUrl);
  }

  /**
   * True when the request ran with TLS certificate and host-name verification switched off
   * ({@code insecureTls}): its server was not authenticated, and reports say so.
   */
  public boolean insecureTls() {
    return insecureTls;
  }

  /**
   * True when the request never reached a server: its connection could not be made
   * ({@link ErrorCategory#CONNECT}), or was reset before any byte of a response. A run's streams back off
   * after such a request, and the summary adds up how long the target was unreachable.
   */
  public boolean targetUnreachable() {
    if (failure == null) {
      return false;
    }
    ErrorCategory c = failure.category();
    return c == ErrorCategory.CONNECT || c == ErrorCategory.RESET && httpStatus == 0 && chunks.size() == 0;
  }

  /**
   * The raw {@code Retry-After} header of a 429 or 503 answer (seconds or an HTTP date, as the server sent it,
   * cut at 64 characters): how long the server asked the client to wait; empty otherwise.
   */
  public Optional<String> retryAfter() {
    return retryAfter.isEmpty() ? Optional.empty() : Optional.of(retryAfter);
  }

  /** A builder initialised with this record's values. */
  public Builder toBuilder() {
    return new Builder().index(index).requestId(requestId()).tags(tags).warmup(warmup).cooldown(cooldown)
        .intendedNanos(intendedNanos).sendNanos(sendNanos).phases(phases).httpStatus(httpStatus)
        .chunks(chunks).usage(usage).finishReason(finishReason).endOffsetNanos(endOffsetNanos)
        .failure(failure()).serverTimings(serverTimings).text(text()).retries(retries).redirects(redirects)
        .finalUrl(finalUrl).insecureTls(insecureTls).retryAfter(retryAfter);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RequestRecord r && r.index == index && r.requestIdHead.equals(requestIdHead)
        && r.requestIdEndsWithIndex == requestIdEndsWithIndex
        && r.tags.equals(tags) && r.warmup == warmup && r.cooldown == cooldown && r.intendedNanos == intendedNanos
        && r.sendNanos == sendNanos && r.phases.equals(phases) && r.httpStatus == httpStatus
        && r.chunks.equals(chunks) && r.usage.equals(usage) && r.finishReason.equals(finishReason)
        && r.endOffsetNanos == endOffsetNanos && Objects.equals(r.failure, failure)
        && r.serverTimings.equals(serverTimings) && Objects.equals(r.text, text) && r.retries == retries
        && r.redirects == redirects && r.finalUrl.equals(finalUrl) && r.insecureTls == insecureTls
        && r.retryAfter.equals(retryAfter);
  }

  @Override
  public int hashCode() {
    return Objects.hash(index, requestIdHead, sendNanos, chunks, failure);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("RequestRecord[#").append(index);
    if (warmup) {
      s.append(" warmup");
    }
    if (cooldown) {
      s.append(" cooldown");
    }
    s.append(failure == null ? " ok" : " FAILED " + failure);
    if (httpStatus != 0) {
      s.append(", HTTP ").append(httpStatus);
    }
    chunks.firstTokenOffsetNanos().ifPresent(t -> s.append(String.format(", first token %.3f ms", t / 1e6)));
    s.append(String.format(", end %.3f ms", endOffsetNanos / 1e6));
    s.append(", ").append(outputTokens).append(" tokens (").append(outputTokensSource).append(')');
    s.append(", ").append(chunks.size()).append(" chunks");
    if (sendNanos != intendedNanos) {
      s.append(String.format(", lag %.3f ms", (sendNanos - intendedNanos) / 1e6));
    }
    if (retries > 0) {
      s.append(", retried ").append(retries);
    }
    if (redirects > 0) {
      s.append(", ").append(redirects).append(" redirects to ").append(finalUrl);
    }
    if (!retryAfter.isEmpty()) {
      s.append(", Retry-After ").append(retryAfter);
    }
    if (insecureTls) {
      s.append(", INSECURE TLS");
    }
    return s.append(']').toString();
  }

  /** Builds a {@link RequestRecord}. */
  public static final class Builder {
    private long index;
    private String requestId = "";
    private Map<String, String> tags = Map.of();
    private boolean warmup;
    private boolean cooldown;
    private long intendedNanos;
    private long sendNanos;
    private ConnectionPhases phases = ConnectionPhases.none();
    private int httpStatus;
    private ChunkTimeline chunks = ChunkTimeline.empty();
    private Usage usage = Usage.NONE;
    private String finishReason = "";
    private long endOffsetNanos;
    private Failure failure;
    private Map<String, Double> serverTimings = Map.of();
    private String text;
    private int retries;
    private int redirects;
    private String finalUrl = "";
    private boolean insecureTls;
    private String retryAfter = "";

    private Builder() {}

    /** Position in the schedule. */
    public Builder index(long index) {
      if (index < 0) {
        throw new IllegalArgumentException("index must be >= 0, was " + index);
      }
      this.index = index;
      return this;
    }

    /** The id sent to the server. */
    public Builder requestId(String requestId) {
      this.requestId = Objects.requireNonNull(requestId, "requestId");
      return this;
    }

    /** Prompt tags. */
    public Builder tags(Map<String, String> tags) {
      this.tags = Objects.requireNonNull(tags, "tags");
      return this;
    }

    /** Marks a warmup request. */
    public Builder warmup(boolean warmup) {
      this.warmup = warmup;
      return this;
    }

    /** Marks a cooldown request. */
    public Builder cooldown(boolean cooldown) {
      this.cooldown = cooldown;
      return this;
    }

    /** Intended send time from the run origin. */
    public Builder intendedNanos(long nanos) {
      this.intendedNanos = nanos;
      return this;
    }

    /** Actual send time from the run origin. */
    public Builder sendNanos(long nanos) {
      this.sendNanos = nanos;
      return this;
    }

    /** Connection milestones. */
    public Builder phases(ConnectionPhases phases) {
      this.phases = Objects.requireNonNull(phases, "phases");
      return this;
    }

    /** HTTP status, 0 for none. */
    public Builder httpStatus(int status) {
      if (status < 0) {
        throw new IllegalArgumentException("httpStatus must be >= 0, was " + status);
      }
      this.httpStatus = status;
      return this;
    }

    /** Chunk timeline. */
    public Builder chunks(ChunkTimeline chunks) {
      this.chunks = Objects.requireNonNull(chunks, "chunks");
      return this;
    }

    /** Server usage. */
    public Builder usage(Usage usage) {
      this.usage = Objects.requireNonNull(usage, "usage");
      return this;
    }

    /** Finish reason, empty for none. */
    public Builder finishReason(String reason) {
      this.finishReason = Objects.requireNonNull(reason, "finishReason");
      return this;
    }

    /** Offset from send at which the stream closed or failed. */
    public Builder endOffsetNanos(long nanos) {
      if (nanos < 0) {
        throw new IllegalArgumentException("endOffsetNanos must be >= 0, was " + nanos);
      }
      this.endOffsetNanos = nanos;
      return this;
    }

    /** The failure, empty for a success. */
    public Builder failure(Optional<Failure> failure) {
      this.failure = failure.orElse(null);
      return this;
    }

    /** Server-side timings. */
    public Builder serverTimings(Map<String, Double> timings) {
      this.serverTimings = Objects.requireNonNull(timings, "serverTimings");
      return this;
    }

    /** Captured content text, empty when not captured. */
    public Builder text(Optional<String> text) {
      this.text = text.orElse(null);
      return this;
    }

    /** How many times the transport sent the request again (see {@link RequestRecord#retries()}). */
    public Builder retries(int retries) {
      if (retries < 0) {
        throw new IllegalArgumentException("retries must be >= 0, was " + retries);
      }
      this.retries = retries;
      return this;
    }

    /** How many redirects were followed. */
    public Builder redirects(int redirects) {
      if (redirects < 0) {
        throw new IllegalArgumentException("redirects must be >= 0, was " + redirects);
      }
      this.redirects = redirects;
      return this;
    }

    /** The URL the response came from after redirects, without userinfo or query; empty for none. */
    public Builder finalUrl(String url) {
      this.finalUrl = Objects.requireNonNull(url, "finalUrl");
      return this;
    }

    /** Marks a request sent with TLS verification switched off. */
    public Builder insecureTls(boolean insecure) {
      this.insecureTls = insecure;
      return this;
    }

    /** The raw {@code Retry-After} header of a 429 or 503 answer ("" for none); cut at 64 characters. */
    public Builder retryAfter(String raw) {
      String v = Objects.requireNonNull(raw, "retryAfter").strip();
      this.retryAfter = v.length() > 64 ? v.substring(0, 64) : v;
      return this;
    }

    /** Returns the record. */
    public RequestRecord build() {
      return new RequestRecord(this);
    }
  }

  /** The prefix of the run's request ids, one instance shared by all of the run's records. */
  private static final class SharedPrefix {
    private static volatile String last = "";

    private SharedPrefix() {}

    static String of(String prefix) {
      String l = last;
      if (l.equals(prefix)) {
        return l;
      }
      last = prefix;
      return prefix;
    }
  }

  /** The finish reasons servers send most, one instance each instead of a string per record. */
  private static final class FinishReason {
    private static final String[] COMMON = {"", "stop", "length", "eos", "eos_token", "tool_calls", "end_turn",
        "max_tokens", "content_filter", "stop_sequence", "function_call", "abort", "tool_use"};

    private FinishReason() {}

    static String canonical(String reason) {
      for (String c : COMMON) {
        if (c.equals(reason)) {
          return c;
        }
      }
      return reason;
    }
  }
}
