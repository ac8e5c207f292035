package io.infermark.core.workload;

import io.infermark.core.load.Randoms;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A ready-made request mix with a retry share and a TTFT SLO carried as tags: a stateless workload
 * that works in open and closed loop alike.
 *
 * <ul>
 *   <li>{@link #singleTurn()}: 87 input tokens, 9.2 % of requests are retries, TTFT SLO 320 ms;
 *   <li>{@link #multiTurn()}: 312 new user tokens per turn over 4-turn conversations (earlier turns
 *       and 64-token synthetic replies carried as history, so context grows turn by turn), 14.7 %
 *       retries, TTFT SLO 580 ms.
 * </ul>
 *
 * <p>Request {@code i} (for {@code i >= 1}) is a retry with probability {@code retryFraction}, drawn
 * from {@code Randoms.mix(seed, i)}: it repeats the nearest earlier request that is not itself a
 * retry, byte for byte, and is tagged {@code retry_of} with that request's index. Otherwise it is
 * an original: for {@code turns = k}, conversation {@code i / k}, turn {@code i mod k}. Every
 * request is tagged {@code mix}, {@code ttft_slo_ms}, {@code session}, {@code turn} and its
 * requested/achieved input tokens (the whole context). For conversations that carry the server's
 * real replies forward, use {@link Sessions}.
 */
public final class Mix implements Workload {

  private final String name;
  private final int inputTokens;
  private final double retryFraction;
  private final Duration ttftSlo;
  private final int turns;
  private final int replyTokens;
  private final TokenCounter counter;
  private final long seed;

  private Mix(String name, int inputTokens, double retryFraction, Duration ttftSlo, int turns, int replyTokens,
      TokenCounter counter, long seed) {
    this.name = name;
    this.inputTokens = inputTokens;
    this.retryFraction = retryFraction;
    this.ttftSlo = ttftSlo;
    this.turns = turns;
    this.replyTokens = replyTokens;
    this.counter = counter;
    this.seed = seed;
  }

  /** Single-turn chat: 87 input tokens, 9.2 % retries, TTFT SLO 320 ms. */
  public static Mix singleTurn() {
    return new Mix("single-turn", 87, 0.092, Duration.ofMillis(320), 1, 0, TokenCounter.estimate(), 0);
  }

  /** Multi-turn chat: 312 user tokens per turn, 4 turns, 64-token replies, 14.7 % retries, TTFT SLO 580 ms. */
  public static Mix multiTurn() {
    return new Mix("multi-turn", 312, 0.147, Duration.ofMillis(580), 4, 64, TokenCounter.estimate(), 0);
  }

  /**
   * A custom mix.
   *
   * @param name the {@code mix} tag
   * @param inputTokens new user tokens per request (per turn), >= 1
   * @param retryFraction share of requests that are retries, in [0, 1)
   * @param ttftSlo the TTFT SLO carried as the {@code ttft_slo_ms} tag
   */
  public static Mix of(String name, int inputTokens, double retryFraction, Duration ttftSlo) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(ttftSlo, "ttftSlo");
    if (inputTokens < 1) {
      throw new IllegalArgumentException("inputTokens must be >= 1, was " + inputTokens);
    }
    if (!(retryFraction >= 0 && retryFraction < 1)) {
      throw new IllegalArgumentException("retryFraction must be in [0, 1), was " + retryFraction);
    }
    return new Mix(name, inputTokens, retryFraction, ttftSlo, 1, 0, TokenCounter.estimate(), 0);
  }

  /** The same mix as conversations of {@code turns} turns with synthetic replies of {@code replyTokens}. */
  public Mix turns(int turns, int replyTokens) {
    if (turns < 1 || replyTokens < 0) {
      throw new IllegalArgumentException("turns must be >= 1 and replyTokens >= 0, were " + turns + ", "
          + replyTokens);
    }
    return new Mix(name, inputTokens, retryFraction, ttftSlo, turns, replyTokens, counter, seed);
  }

  /** The same mix with lengths by another counter. */
  public Mix counter(TokenCounter counter) {
    return new Mix(name, inputTokens, retryFraction, ttftSlo, turns, replyTokens,
        Objects.requireNonNull(counter, "counter"), seed);
  }

  /** The same mix with another seed (text and retry draws). */
  public Mix seed(long seed) {
    return new Mix(name, inputTokens, retryFraction, ttftSlo, turns, replyTokens, counter, seed);
  }

  /** The mix's TTFT SLO. */
  public Duration ttftSlo() {
    return ttftSlo;
  }

  /** Share of requests that are retries. */
  public double retryFraction() {
    return retryFraction;
  }

  /** New input tokens per request (per turn). */
  public int inputTokens() {
    return inputTokens;
  }

  /**
   * The mean input of an original request over a conversation's turns, tokens: turn {@code t} sends
   * {@code t·(input + reply) + input}, so the mean is {@code input + (turns − 1)/2 · (input + reply)}. For
   * {@link #multiTurn()} 312 + 1.5 × 376 = 876, where seed 003 §2.1's table gives the multi-turn query's mean
   * length as 312; {@code Mix.of("multi-turn", 87, 0.147, Duration.ofMillis(580)).turns(4, 63)} averages 312.
   */
  public double meanInputTokens() {
    return inputTokens + (turns - 1) / 2.0 * (inputTokens + replyTokens);
  }

  /** Whether request {@code i} is a retry. */
  public boolean isRetry(long index) {
    return index > 0 && new SplittableRandom(Randoms.mix(seed ^ 0x7E7L, index)).nextDouble() < retryFraction;
  }

  @Override
  public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
    long original = index;
    while (isRetry(original)) {
      original--;
    }
    long session = original / turns;
    int turn = (int) (original % turns);
    Prompt p = Prompt.chat(Conversation.synthetic(counter, inputTokens, replyTokens, seed, session, turn))
        .withTag(WorkloadTags.MIX, name).withTag(WorkloadTags.TTFT_SLO_MS, Long.toString(ttftSlo.toMillis()))
        .withTag(WorkloadTags.SESSION, Long.toString(session)).withTag(WorkloadTags.TURN, Integer.toString(turn));
    if (original != index) {
      p = p.withTag(WorkloadTags.RETRY_OF, Long.toString(original));
    }
    return new RequestSpec(ExactLength.tag(p, counter, turn * (inputTokens + replyTokens) + inputTokens), defaults);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "Mix[%s: %d tokens%s, %.1f %% retries, TTFT SLO %d ms]", name, inputTokens,
        turns > 1 ? " per turn over " + turns + " turns" : "", retryFraction * 100, ttftSlo.toMillis());
  }
}
