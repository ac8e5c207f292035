package io.infermark.core.session;

import io.infermark.core.load.Randoms;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A workload of whole sessions: pass it to {@code Benchmark.workload(...)} and the engine runs it on its
 * asynchronous issuing path, with {@code LoadProfile.concurrency(n)} meaning n concurrent sessions (each
 * slot starts a new session when its last one ends) and {@code LoadProfile.arrivals(...)} meaning session
 * arrivals (an open loop of sessions).
 *
 * <pre>{@code
 * SessionWorkload agents = SessionWorkload.builder(SyntheticSessions.builder().turns(5)
 *         .tool(ToolCall.of("search", Latency.logNormal(Duration.ofMillis(120), 0.5))).fanOut(FanOut.of(3)).build())
 *     .retry(RetryPolicy.of(3, Duration.ofMillis(200))).thinkTime(Latency.exponential(Duration.ofSeconds(2)))
 *     .build();
 * Benchmark.target(t).workload(agents).load(LoadProfile.concurrency(64).duration(Duration.ofMinutes(5))).run();
 * }</pre>
 *
 * <p>Each turn's prompt is the session's real history (every message sent, the server's actual replies,
 * tool results and joined sub-agent replies) followed by the turn's new message, so the context grows by
 * what the server said. A reply with no captured text (a target that reports none) is replaced by as many
 * synthetic words as its output tokens. Every call, retry and sub-agent branch is one request and one
 * record, tagged as {@link SessionTags} says. Client-side waits (tools, think time, backoff) run on the
 * engine's timer, so no thread sleeps per session. The run's request limit counts calls; {@link
 * Builder#maxSessions(long)} limits sessions.
 */
public final class SessionWorkload implements Workload {

  private final SessionSource source;
  private final RetryPolicy retry;
  private final Latency thinkTime;
  private final OptionalLong maxSessions;
  private final TokenCounter counter;
  private final long seed;

  private SessionWorkload(Builder b) {
    this.source = b.source;
    this.retry = b.retry;
    this.thinkTime = b.thinkTime;
    this.maxSessions = b.maxSessions.isPresent() ? b.maxSessions : source.size();
    this.counter = b.counter;
    this.seed = b.seed;
  }

  /** A builder over {@code source}: no retries, no think time, the estimate counter, seed 0. */
  public static Builder builder(SessionSource source) {
    return new Builder(source);
  }

  /** The sessions. */
  public SessionSource source() {
    return source;
  }

  /** The retry policy of model calls and tool attempts. */
  public RetryPolicy retry() {
    return retry;
  }

  /** Think time before every turn after the first (a turn's own think time wins). */
  public Latency thinkTime() {
    return thinkTime;
  }

  /** The most sessions the run starts, or empty for as many as its load and limits allow. */
  public OptionalLong maxSessions() {
    return maxSessions;
  }

  /** The counter of the {@code input_tokens_achieved} tag. */
  public TokenCounter counter() {
    return counter;
  }

  /** The seed of tool, think-time and stand-in-text draws. */
  public long seed() {
    return seed;
  }

  @Override
  public boolean needsText() {
    return true;
  }

  /**
   * Outside the session driver (a host calling it directly), request {@code i} is the first turn of
   * session {@code i} alone; the engine never calls this for a session workload.
   */
  @Override
  public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
    Session s = source.session(index);
    Turn t = s.turns().get(0);
    Prompt p = Prompt.chat(List.of(Message.user(t.message()))).withTag(SessionTags.SESSION, s.id())
        .withTag(SessionTags.TURN, "0");
    return new RequestSpec(p, t.maxTokens().isPresent() ? RequestSpec.exactOutput(defaults, t.maxTokens().getAsInt())
        : defaults);
  }

  /**
   * Runs the sessions over the engine's calls until the load's limits are reached, its issue deadline
   * passes or it is stopped; returns when nothing more will be issued. Called by the run engine.
   */
  public void issue(SessionCalls calls) {
    new SessionDriver(this, Objects.requireNonNull(calls, "calls")).run();
  }

  long seedFor(long sessionIndex) {
    return Randoms.mix(seed ^ 0x5E55_1011L, sessionIndex);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SessionWorkload[%s, %s, think %s%s]", source, retry, thinkTime,
        maxSessions.isPresent() ? ", at most " + maxSessions.getAsLong() + " sessions" : "");
  }

  /** Builds a {@link SessionWorkload}. */
  public static final class Builder {
    private final SessionSource source;
    private RetryPolicy retry = RetryPolicy.none();
    private Latency thinkTime = Latency.none();
    private OptionalLong maxSessions = OptionalLong.empty();
    private TokenCounter counter = TokenCounter.estimate();
    private long seed;

    private Builder(SessionSource source) {
      this.source = Objects.requireNonNull(source, "source");
    }

    /** How failed model calls and tool attempts are retried (default none). */
    public Builder retry(RetryPolicy policy) {
      this.retry = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** Think time before each turn after the first (default none). */
    public Builder thinkTime(Latency think) {
      this.thinkTime = Objects.requireNonNull(think, "think");
      return this;
    }

    /** Starts at most {@code n} sessions (default: a trace's size, or unlimited). */
    public Builder maxSessions(long n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxSessions must be >= 1, was " + n);
      }
      this.maxSessions = OptionalLong.of(n);
      return this;
    }

    /** Counter of the {@code input_tokens_achieved} tag (default the estimate). */
    public Builder counter(TokenCounter counter) {
      this.counter = Objects.requireNonNull(counter, "counter");
      return this;
    }

    /** Seed of tool latencies and failures, think times and stand-in text (default 0). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Returns the workload. */
    public SessionWorkload build() {
      return new SessionWorkload(this);
    }
  }
}
