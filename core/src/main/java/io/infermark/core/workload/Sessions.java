package io.infermark.core.workload;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.Randoms;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Multi-turn sessions whose context grows turn by turn with the real history carried forward, for
 * closed-loop runs (each stream is one user holding one session at a time):
 *
 * <pre>{@code
 * Benchmark.target(t).workload(Sessions.builder().turns(20).userTokens(256).retryProbability(0.12).build())
 *     .load(LoadProfile.concurrency(16).duration(Duration.ofMinutes(10)).thinkTime(Duration.ofSeconds(2)))
 *     .run();
 * }</pre>
 *
 * <p>Turn {@code k+1} is sent after turn {@code k}'s response has ended plus the profile's think
 * time; its messages are every earlier user message and reply followed by a new user message of
 * {@code userTokens}. The reply is the response's captured text (the run captures text for this
 * workload); when a response carries no text (a failed request, or a target that reports none),
 * a synthetic stand-in of as many words as the response's output tokens takes its place. After
 * {@code turns} turns the stream starts a new session with an empty history.
 *
 * <p>Retries: after an original request ends, with probability {@code retryProbability} (drawn from
 * {@code Randoms.mix(seed, index)}) the stream sends the identical request again as its next one,
 * tagged {@code retry_of} with the original's index, and the conversation then continues from the
 * retry's reply. A retry is not retried again. Records carry {@code session} ("stream.n"),
 * {@code turn} and the requested/achieved input tokens of the whole context, so a run shows where
 * the server degrades as context grows.
 *
 * <p>Used in open loop, request {@code i} is turn {@code i mod turns} of session {@code i / turns}
 * with synthetic history and no retries.
 */
public final class Sessions implements Workload {

  private final int turns;
  private final int userTokens;
  private final double retryProbability;
  private final int syntheticReplyTokens;
  private final TokenCounter counter;
  private final long seed;
  /** A system message every session starts with (prefix reuse across sessions); empty for none. */
  private final List<Message> sharedPrefix;

  private Sessions(Builder b) {
    this.turns = b.turns;
    this.userTokens = b.userTokens;
    this.retryProbability = b.retryProbability;
    this.syntheticReplyTokens = b.syntheticReplyTokens;
    this.counter = b.counter;
    this.seed = b.seed;
    this.sharedPrefix = b.sharedPrefixTokens == 0 ? List.of()
        : List.of(Message.system(SyntheticText.exactly(counter, b.sharedPrefixTokens, Randoms.mix(seed, 0x5E55L))));
  }

  /** A builder: 8 turns of 128 user tokens, retry probability 0.12, estimate counter, seed 0. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public boolean needsText() {
    return true;
  }

  @Override
  public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
    long session = index / turns;
    int turn = (int) (index % turns);
    List<Message> messages = new ArrayList<>(sharedPrefix);
    messages.addAll(Conversation.synthetic(counter, userTokens, syntheticReplyTokens, seed, session, turn));
    Prompt p = Prompt.chat(messages);
    return new RequestSpec(tag(p, Long.toString(session), turn), defaults);
  }

  private Prompt tag(Prompt p, String session, int turn) {
    Prompt tagged = p.withTag(WorkloadTags.SESSION, session).withTag(WorkloadTags.TURN, Integer.toString(turn));
    return tagged.withTag(WorkloadTags.INPUT_TOKENS_ACHIEVED, Integer.toString(counter.count(tagged)))
        .withTag(WorkloadTags.TOKENIZER, counter.name());
  }

  @Override
  public StreamSource stream(int stream) {
    return new SessionStream(stream);
  }

  /** One user's sessions, one after another. */
  private final class SessionStream implements StreamSource {
    private final int stream;
    private final List<Message> history = new ArrayList<>();
    private long sessions;
    private long sessionKey;
    private String session;
    private int turn;
    private Message user;
    private RequestSpec last;
    private long originalIndex;
    private boolean lastWasRetry;
    private boolean retryPending;

    SessionStream(int stream) {
      this.stream = stream;
    }

    @Override
    public RequestSpec next(long index, long elapsedNanos, GenerationParams defaults) {
      if (retryPending) {
        retryPending = false;
        lastWasRetry = true;
        return new RequestSpec(last.prompt().withTag(WorkloadTags.RETRY_OF, Long.toString(originalIndex)),
            last.params());
      }
      if (turn == 0) {
        session = stream + "." + sessions;
        sessionKey = ((long) stream << 32) + sessions++;
      }
      user = Conversation.user(counter, userTokens, seed, sessionKey, turn);
      List<Message> messages = new ArrayList<>(sharedPrefix);
      messages.addAll(history);
      messages.add(user);
      last = new RequestSpec(tag(Prompt.chat(messages), session, turn), defaults);
      originalIndex = index;
      lastWasRetry = false;
      return last;
    }

    @Override
    public void completed(RequestRecord record) {
      if (!lastWasRetry && retryProbability > 0
          && new SplittableRandom(Randoms.mix(seed ^ 0x7E7L, record.index())).nextDouble() < retryProbability) {
        retryPending = true;
        return;
      }
      String reply = record.text().filter(t -> !t.isEmpty()).orElseGet(() ->
          SyntheticText.words(Randoms.mix(seed ^ 0xA55L, record.index()), record.outputTokens()));
      history.add(user);
      history.add(Message.assistant(reply));
      turn++;
      if (turn == turns) {
        turn = 0;
        history.clear();
      }
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "Sessions[%d turns of %d tokens, retry probability %s%s]", turns, userTokens,
        retryProbability, sharedPrefix.isEmpty() ? "" : ", a shared system prefix");
  }

  /** Builds {@link Sessions}. */
  public static final class Builder {
    private int turns = 8;
    private int userTokens = 128;
    private double retryProbability = 0.12;
    private int syntheticReplyTokens = 64;
    private TokenCounter counter = TokenCounter.estimate();
    private long seed;
    private int sharedPrefixTokens;

    private Builder() {}

    /** Turns per session (default 8), >= 1. */
    public Builder turns(int turns) {
      if (turns < 1) {
        throw new IllegalArgumentException("turns must be >= 1, was " + turns);
      }
      this.turns = turns;
      return this;
    }

    /** New user tokens per turn (default 128), >= 1. */
    public Builder userTokens(int tokens) {
      if (tokens < 1) {
        throw new IllegalArgumentException("userTokens must be >= 1, was " + tokens);
      }
      this.userTokens = tokens;
      return this;
    }

    /** Probability that an original request is retried once (default 0.12), in [0, 1). */
    public Builder retryProbability(double p) {
      if (!(p >= 0 && p < 1)) {
        throw new IllegalArgumentException("retryProbability must be in [0, 1), was " + p);
      }
      this.retryProbability = p;
      return this;
    }

    /** Reply length of the synthetic history used in open loop (default 64), >= 0. */
    public Builder syntheticReplyTokens(int tokens) {
      if (tokens < 0) {
        throw new IllegalArgumentException("syntheticReplyTokens must be >= 0, was " + tokens);
      }
      this.syntheticReplyTokens = tokens;
      return this;
    }

    /** Counter of user-message lengths and the achieved-length tag (default the estimate). */
    public Builder counter(TokenCounter counter) {
      this.counter = Objects.requireNonNull(counter, "counter");
      return this;
    }

    /** Seed of text and retry draws (default 0). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * Starts every session with the same system message of {@code tokens} tokens (0, the default: none), so
     * sessions share that prefix with each other as well as their own history: prefix reuse across sessions.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder sharedPrefixTokens(int tokens) {
      if (tokens < 0) {
        throw new IllegalArgumentException("sharedPrefixTokens must be >= 0, was " + tokens);
      }
      this.sharedPrefixTokens = tokens;
      return this;
    }

    /** Returns the workload. */
    public Sessions build() {
      return new Sessions(this);
    }
  }
}
