package io.infermark.core.workload;

import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.Randoms;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.SplittableRandom;

/**
 * The Zipf × burst × context-gradient shaper: one seeded plan that decides, for every request,
 * which item it asks about, how long its context is and how soon it follows the previous one.
 *
 * <pre>{@code
 * ZipfBurstShaper shaper = ZipfBurstShaper.defaults();  // α 1.2, 512 + 1024·(rank − 1), λ 2.5, 100 ms
 * Benchmark.target(t).workload(shaper.workload())
 *     .load(LoadProfile.arrivals(shaper.arrivals()).duration(Duration.ofMinutes(5))).run();
 * }</pre>
 *
 * <p>For request {@code i} (each draw from its own stream {@code Randoms.mix(seed, i)}):
 * <ol>
 *   <li>rank {@code r ∈ 1..N} ~ Zipf(α): {@code P(r) = r^−α / Σₖ k^−α} (rank 1 is the hottest item);
 *   <li>context {@code c = base + perRank·(r − 1)} tokens (by rank, seed 002 §4.3's table), or
 *       {@code c = ⌊base + span·r / N⌋} (by rank share, {@link Builder#contextByRankShare}: the seed's code),
 *       or {@code c = base + perRank·⌊t / step⌋} with {@code t} the request's intended time (by time);
 *   <li>burst {@code b} ~ Poisson(λ), at most {@link Builder#burstCap} (none by default; the seed's code
 *       caps it to [0, 5]);
 *   <li>input tokens {@code n = c·(b + 1)} ({@link BurstTokens#CONTEXT_TIMES_BURST_PLUS_ONE}, the default)
 *       or {@code n = c·b} ({@link BurstTokens#CONTEXT_TIMES_BURST}, the seed's code); gap before it
 *       {@code g = baseGap / (b + 1)}, so with the default {@code n·g = c·baseGap} for every request: a
 *       burst packs more tokens into less time without changing the token flow per item;
 *   <li>it is sent at {@code tᵢ = g₀ + … + gᵢ} (so the first after {@code g₀}).
 * </ol>
 *
 * <p>The prompt is the item's shared prefix (the first {@code c} words of the item's synthetic
 * text, or the item's own prompt when {@link Builder#rankPrompts(List)} is given) followed by
 * {@code n − c} words unique to the request; hot items thus reuse the server's prefix cache and a
 * burst adds uncached tokens. With {@code n = c·b} a request whose burst is 0 plans 0 tokens (the seed's
 * code sends an empty request); an empty prompt cannot be sent, so it carries one word and its tags say
 * so ({@code input_tokens_requested} 0, {@code input_tokens_achieved} 1). A request of {@code n < c}
 * tokens is the first {@code n} words of the item's text. Records carry tags {@code rank}, {@code burst},
 * {@code input_tokens_requested} ({@code n}) and {@code input_tokens_achieved} (by the counter).
 * The shaper's own seed drives both the schedule and the prompts; the load profile's seed is not
 * used. Immutable.
 */
public final class ZipfBurstShaper {

  private final int items;
  private final double alpha;
  private final int baseTokens;
  private final int tokensPerStep;
  private final Duration timeStep;
  private final boolean byRankShare;
  private final BurstTokens burstTokens;
  private final int burstCap;
  private final double burstMean;
  private final long baseGapNanos;
  private final long seed;
  private final TokenCounter counter;
  private final List<Prompt> rankPrompts;
  private final double[] cumulative;

  private ZipfBurstShaper(Builder b) {
    this.items = b.items;
    this.alpha = b.alpha;
    this.baseTokens = b.baseTokens;
    this.tokensPerStep = b.tokensPerStep;
    this.timeStep = b.timeStep;
    this.byRankShare = b.byRankShare;
    this.burstTokens = b.burstTokens;
    this.burstCap = b.burstCap;
    this.burstMean = b.burstMean;
    this.baseGapNanos = b.baseGapNanos;
    this.seed = b.seed;
    this.counter = b.counter;
    this.rankPrompts = b.rankPrompts;
    this.cumulative = new double[items];
    double sum = 0;
    for (int k = 1; k <= items; k++) {
      sum += Math.pow(k, -alpha);
      cumulative[k - 1] = sum;
    }
    for (int k = 0; k < items; k++) {
      cumulative[k] /= sum;
    }
  }

  /**
   * The preset: 10 items, α = 1.2, context {@code 512 + 1024·(rank − 1)} tokens (512 for rank 1,
   * 9,728 for rank 10), λ = 2.5, base gap 100 ms, seed 0.
   */
  public static ZipfBurstShaper defaults() {
    return builder().build();
  }

  /**
   * Seed 002 §4.3's Go code as written: 100 items (its table speaks of the top 100), α = 1.2, context
   * {@code int64(512 + 1024·rank/N)} tokens (522 for rank 1, 1,536 for rank 100), burst
   * {@code Poisson(λ=3) → [0,5]} (λ from the code's comment, capped to 5), input tokens {@code c·b}
   * ({@code Tokens: baseLen * burstFactor}) and gap {@code 100 ms / (b + 1)}, seed 0. Its table's form is
   * {@link #defaults()}; docs/scenarios.md says where the two disagree.
   */
  public static ZipfBurstShaper seedCode() {
    return builder().items(100).contextByRankShare(512, 1024).burstMean(3).burstCap(5)
        .burstTokens(BurstTokens.CONTEXT_TIMES_BURST).build();
  }

  /** How a request's burst factor {@code b} scales its context {@code c} into its input tokens. */
  public enum BurstTokens {
    /** {@code n = c·(b + 1)}: the context plus {@code b} more, so {@code n·g = c·baseGap} (the default). */
    CONTEXT_TIMES_BURST_PLUS_ONE,
    /** {@code n = c·b}: seed 002 §4.3's code ({@code Tokens: baseLen * burstFactor}); 0 when {@code b = 0}. */
    CONTEXT_TIMES_BURST
  }

  /** A builder starting from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The plan of one request.
   *
   * @param index the request's index
   * @param rank its popularity rank, from 1
   * @param burst its burst factor b
   * @param contextTokens its context length c
   * @param inputTokens c·(b + 1), or c·b with {@link BurstTokens#CONTEXT_TIMES_BURST}
   * @param gapNanos baseGap / (b + 1), the gap before it (not rounded)
   */
  public record Shaped(long index, int rank, int burst, int contextTokens, long inputTokens, double gapNanos) {}

  /** Request {@code index}'s rank and burst, and its context length if it is intended at {@code intendedNanos}. */
  public Shaped plan(long index, long intendedNanos) {
    SplittableRandom r = new SplittableRandom(Randoms.mix(seed, index));
    int rank = rank(r.nextDouble());
    int burst = burst(r);
    int context = context(rank, intendedNanos);
    long multiple = burstTokens == BurstTokens.CONTEXT_TIMES_BURST ? burst : burst + 1L;
    return new Shaped(index, rank, burst, context, context * multiple, baseGapNanos / (burst + 1.0));
  }

  private int burst(SplittableRandom r) {
    return Math.min(burstCap, Randoms.poisson(r, burstMean));
  }

  private int rank(double u) {
    int k = Arrays.binarySearch(cumulative, u);
    return Math.min(items, (k >= 0 ? k : -k - 1) + 1);
  }

  private int context(int rank, long intendedNanos) {
    if (byRankShare) {
      // the seed's int64(512 + 1024*float64(rank)/float64(N)): a float sum truncated toward zero
      return (int) (baseTokens + tokensPerStep * (double) rank / items);
    }
    long steps = timeStep == null ? rank - 1 : Math.max(0, intendedNanos) / timeStep.toNanos();
    return (int) Math.min(Integer.MAX_VALUE, baseTokens + tokensPerStep * steps);
  }

  /** The probability of rank {@code k} (1-based): {@code k^−α / Σ j^−α}. */
  public double rankProbability(int k) {
    if (k < 1 || k > items) {
      throw new IllegalArgumentException("rank must be in [1, " + items + "], was " + k);
    }
    return cumulative[k - 1] - (k == 1 ? 0 : cumulative[k - 2]);
  }

  /** The arrival process: request i at the sum of the gaps of requests 0..i (rounded to the nanosecond). */
  public ArrivalProcess arrivals() {
    return new ArrivalProcess() {
      @Override
      public long[] schedule(int maxCount, long limitNanos, long ignoredSeed) {
        if (maxCount < 0 || limitNanos < 0) {
          throw new IllegalArgumentException("maxCount and limitNanos must be >= 0, were " + maxCount + ", "
              + limitNanos);
        }
        long[] t = new long[(int) Math.min(maxCount, 1 << 16)];
        int n = 0;
        double now = 0;
        while (n < maxCount) {
          SplittableRandom r = new SplittableRandom(Randoms.mix(seed, n));
          r.nextDouble(); // the rank's draw
          now += baseGapNanos / (burst(r) + 1.0);
          long at = Math.round(now);
          if (at >= limitNanos) {
            break;
          }
          if (n == t.length) {
            t = Arrays.copyOf(t, (int) Math.min(maxCount, 2L * t.length + 16));
          }
          t[n++] = at;
        }
        return n == t.length ? t : Arrays.copyOf(t, n);
      }

      /**
       * 1 / E[baseGap / (B + 1)] with B ~ Poisson(λ): E[1/(B+1)] = (1 − e^−λ) / λ; with a cap m, the sum
       * of P(B = k)/(k + 1) below m plus P(B ≥ m)/(m + 1).
       */
      @Override
      public OptionalDouble nominalRate() {
        return OptionalDouble.of(1e9 / (baseGapNanos * meanInverseBurst()));
      }

      @Override
      public String toString() {
        return "shaped(" + ZipfBurstShaper.this + ")";
      }
    };
  }

  /** E[1 / (min(B, cap) + 1)] for B ~ Poisson(λ). */
  private double meanInverseBurst() {
    if (burstMean == 0) {
      return 1;
    }
    if (burstCap == Integer.MAX_VALUE) {
      return -Math.expm1(-burstMean) / burstMean;
    }
    double p = Math.exp(-burstMean);
    double below = 0;
    double sum = 0;
    for (int k = 0; k < burstCap; k++) {
      sum += p / (k + 1);
      below += p;
      p *= burstMean / (k + 1);
    }
    return sum + Math.max(0, 1 - below) / (burstCap + 1.0);
  }

  /** The workload: each request's prompt built from its plan (see the class description). */
  public Workload workload() {
    return new Workload() {
      @Override
      public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
        return new RequestSpec(prompt(plan(index, intendedNanos)), defaults);
      }

      @Override
      public int distinctPrompts() {
        return items;
      }

      @Override
      public String toString() {
        return "shaped prompts(" + ZipfBurstShaper.this + ")";
      }
    };
  }

  /** The prompt of a planned request. */
  public Prompt prompt(Shaped s) {
    StringBuilder text = new StringBuilder();
    // an empty prompt cannot be sent: a 0-token plan (n = c·b with b = 0) carries one word
    long sent = Math.max(1, s.inputTokens());
    long shared = rankPrompts.isEmpty() ? Math.min(s.contextTokens(), sent) : 0;
    if (rankPrompts.isEmpty()) {
      SyntheticText.appendWords(text, Randoms.mix(seed ^ 0x5A17L, s.rank()), 0, (int) shared);
    } else {
      text.append(rankPrompts.get(s.rank() - 1).text());
    }
    long extra = sent - shared;
    SyntheticText.appendWords(text, Randoms.mix(seed ^ 0xB0B5L, s.index()), 0, (int) Math.min(extra, 1 << 24));
    Prompt p = Prompt.user(text.toString()).withTag(WorkloadTags.RANK, Integer.toString(s.rank()))
        .withTag(WorkloadTags.BURST, Integer.toString(s.burst()));
    return ExactLength.tag(p, counter, (int) Math.min(Integer.MAX_VALUE, s.inputTokens()));
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ZipfBurstShaper[%d items, α %s, context %d + %d per %s, burst λ %s%s, "
        + "%s, base gap %.3f ms, seed %d]", items, alpha, baseTokens, tokensPerStep,
        byRankShare ? "rank/N" : timeStep == null ? "rank" : timeStep.toString(), burstMean,
        burstCap == Integer.MAX_VALUE ? "" : " capped at " + burstCap,
        burstTokens == BurstTokens.CONTEXT_TIMES_BURST ? "tokens c·b" : "tokens c·(b+1)", baseGapNanos / 1e6, seed);
  }

  /** Builds a {@link ZipfBurstShaper}; every parameter has a method. */
  public static final class Builder {
    private int items = 10;
    private double alpha = 1.2;
    private int baseTokens = 512;
    private int tokensPerStep = 1024;
    private Duration timeStep;
    private boolean byRankShare;
    private BurstTokens burstTokens = BurstTokens.CONTEXT_TIMES_BURST_PLUS_ONE;
    private int burstCap = Integer.MAX_VALUE;
    private double burstMean = 2.5;
    private long baseGapNanos = 100_000_000L;
    private long seed;
    private TokenCounter counter = TokenCounter.estimate();
    private List<Prompt> rankPrompts = List.of();

    private Builder() {}

    /** Number of items N ranked by popularity (default 10), >= 1. */
    public Builder items(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("items must be >= 1, was " + n);
      }
      this.items = n;
      return this;
    }

    /** Zipf exponent α (default 1.2), > 0. */
    public Builder alpha(double alpha) {
      if (!(alpha > 0) || Double.isInfinite(alpha)) {
        throw new IllegalArgumentException("alpha must be finite and > 0, was " + alpha);
      }
      this.alpha = alpha;
      return this;
    }

    /** Context length of rank 1 (or of time 0), tokens (default 512), >= 1. */
    public Builder baseContextTokens(int tokens) {
      if (tokens < 1) {
        throw new IllegalArgumentException("baseContextTokens must be >= 1, was " + tokens);
      }
      this.baseTokens = tokens;
      return this;
    }

    /** Tokens added per rank below the first (default 1024): context by rank. */
    public Builder tokensPerRank(int tokens) {
      this.tokensPerStep = nonNegative(tokens, "tokensPerRank");
      this.timeStep = null;
      this.byRankShare = false;
      return this;
    }

    /**
     * Context by rank share, seed 002 §4.3's code: {@code c = int64(base + span·rank/N)} tokens (the float
     * sum truncated), so ranks 1..N span {@code (base, base + span]}. Sets the base context too.
     */
    public Builder contextByRankShare(int base, int span) {
      baseContextTokens(base);
      this.tokensPerStep = nonNegative(span, "span");
      this.timeStep = null;
      this.byRankShare = true;
      return this;
    }

    /** How the burst factor scales the context into input tokens (default {@code c·(b + 1)}). */
    public Builder burstTokens(BurstTokens rule) {
      this.burstTokens = Objects.requireNonNull(rule, "burstTokens");
      return this;
    }

    /** The largest burst factor: a Poisson draw above it counts as {@code max} (default none), >= 0. */
    public Builder burstCap(int max) {
      this.burstCap = nonNegative(max, "burstCap");
      return this;
    }

    /** Context by elapsed time instead: {@code tokens} more every {@code step} of intended time. */
    public Builder contextByTime(int tokens, Duration step) {
      Objects.requireNonNull(step, "step");
      if (step.isNegative() || step.isZero()) {
        throw new IllegalArgumentException("context time step must be > 0, was " + step);
      }
      this.tokensPerStep = nonNegative(tokens, "tokens per step");
      this.timeStep = step;
      this.byRankShare = false;
      return this;
    }

    /** Mean λ of the Poisson burst factor (default 2.5), >= 0. */
    public Builder burstMean(double lambda) {
      if (!(lambda >= 0) || Double.isInfinite(lambda)) {
        throw new IllegalArgumentException("burstMean must be finite and >= 0, was " + lambda);
      }
      this.burstMean = lambda;
      return this;
    }

    /** The gap of a request without burst (default 100 ms), > 0. */
    public Builder baseGap(Duration gap) {
      Objects.requireNonNull(gap, "baseGap");
      if (gap.isNegative() || gap.isZero()) {
        throw new IllegalArgumentException("baseGap must be > 0, was " + gap);
      }
      this.baseGapNanos = gap.toNanos();
      return this;
    }

    /** Seed of ranks, bursts and text (default 0). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Counter for the achieved-length tag (default {@link TokenCounter#estimate()}). */
    public Builder counter(TokenCounter counter) {
      this.counter = Objects.requireNonNull(counter, "counter");
      return this;
    }

    /** The prompt of each rank (rank 1 first; exactly {@link #items} of them) instead of synthetic text. */
    public Builder rankPrompts(List<Prompt> prompts) {
      this.rankPrompts = List.copyOf(prompts);
      return this;
    }

    /** Returns the shaper. */
    public ZipfBurstShaper build() {
      if (!rankPrompts.isEmpty() && rankPrompts.size() != items) {
        throw new IllegalArgumentException("rankPrompts must give one prompt per item: " + items + " items, "
            + rankPrompts.size() + " prompts");
      }
      return new ZipfBurstShaper(this);
    }

    private static int nonNegative(int v, String name) {
      if (v < 0) {
        throw new IllegalArgumentException(name + " must be >= 0, was " + v);
      }
      return v;
    }
  }
}
